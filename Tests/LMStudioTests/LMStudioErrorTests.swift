import HTTP
import Testing

@testable import LMStudio

struct LMStudioErrorTests {
    func error(_ status: Int, _ body: String, tokenSent: Bool = false) -> LMStudioError? {
        LMStudioError.error(status: status, body: Array(body.utf8), tokenSent: tokenSent)
    }

    @Test func objectFormCarriesMessageParamAndCode() {
        let body =
            #"{"error":{"type":"invalid_request","message":"Invalid reasoning value 'xhigh'","code":"invalid_value","param":"reasoning"}}"#
        #expect(
            error(400, body)
                == .invalidRequest(
                    message: "Invalid reasoning value 'xhigh'", param: "reasoning", code: "invalid_value"))
    }

    @Test func stringFormIsTheMessage() {
        #expect(error(500, #"{"error":"Model crashed"}"#) == .server(status: 500, message: "Model crashed"))
    }

    @Test func rawTextIsSanitisedAndShortened() {
        let shown = error(502, "Bad \u{1B}[31mgateway\r\n" + String(repeating: "x", count: 2000))
        guard case .server(502, let message)? = shown else {
            Issue.record("expected a server error, got \(String(describing: shown))")
            return
        }
        #expect(!message.contains("\u{1B}") && !message.contains("\r") && message.hasPrefix("Bad  [31mgateway"))
        #expect(message.count == 501 && message.hasSuffix("…"))
    }

    @Test func emptyBodyStillReadsWell() {
        #expect(error(503, "") == .server(status: 503, message: "(no message)"))
    }

    @Test(arguments: [200, 404])
    func pre04ServerIsDetected(status: Int) {
        let shown = error(status, #"{"error":"Unexpected endpoint or method. (POST /api/v1/chat)"}"#)
        #expect(shown == .serverTooOld)
        #expect(shown?.description.contains("LM Studio 0.4 or newer is required") == true)
    }

    @Test func successBodiesAreNotErrors() {
        #expect(error(200, #"{"models":[]}"#) == nil)
        #expect(error(204, "") == nil)
    }

    @Test func unauthorisedWithoutTokenExplainsHowToProvideOne() {
        let shown = error(
            401,
            #"{"error":{"type":"invalid_request","code":"invalid_api_key","message":"An LM Studio API token is required"}}"#
        )
        #expect(shown == .tokenMissing)
        #expect(shown?.description.contains("LM_API_TOKEN") == true)
        #expect(shown?.description.contains("llmster/credentials") == true)
    }

    @Test func unauthorisedWithTokenSaysItWasRejected() {
        #expect(error(401, "{}", tokenSent: true) == .tokenRejected)
    }

    /// A 403 to a token is a permission the token lacks (LM Studio's per-token permissions), not a wrong token.
    @Test func forbiddenWithTokenSaysTheTokenLacksPermission() {
        let shown = error(403, #"{"error":{"message":"Not allowed to load models"}}"#, tokenSent: true)
        #expect(shown == .tokenLacksPermission(message: "Not allowed to load models"))
        #expect(
            shown?.description.contains(
                "the token lacks permission for this request (LM Studio's per-token permissions)") == true)
        #expect(shown?.description.contains("rejected") == false)
        #expect(error(403, "{}", tokenSent: false) == .tokenMissing)
    }

    @Test func modelNotFoundIsRecognisedByTypeOrCode() {
        #expect(
            error(404, #"{"error":{"type":"model_not_found","message":"No model 'ghost'"}}"#)
                == .modelNotFound("No model 'ghost'"))
        #expect(
            error(400, #"{"error":{"code":"model_not_found","message":"No model 'ghost'"}}"#)
                == .modelNotFound("No model 'ghost'"))
    }

    @Test func unreachableReadsAsAHint() {
        let shown = LMStudioError.from(
            HTTPError.unreachable(url: "http://localhost:1234/api/v1/models", reason: "connection refused"),
            server: "http://localhost:1234")
        #expect(
            shown.description
                == "LM Studio is not reachable at http://localhost:1234 (connection refused). Is the server running? Try `lms server start`."
        )
    }
}
