import Foundation
import HTTP
import LMStudio
import Simulator
import TestSupport
import Testing

/// Where LM Studio's docs are silent or contradict themselves, the client copes with the servers seen or possible.
@Suite struct ServerToleranceTests {
    func client(_ fixture: SimulatorFixture, token: String? = nil) -> LMStudioClient {
        LMStudioClient(server: fixture.url, token: token, transport: CurlTransport())
    }

    static let image =
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAoAAAAKCAYAAACNMs+9AAAAFUlEQVR42mP8z8BQz0AEYBxVSF+FABJADveWkH6oAAAAAElFTkSuQmCC"

    /// The text item `type` of each recorded chat request.
    func textItemTypes(_ fixture: SimulatorFixture) -> [String] {
        fixture.requests(to: "/api/v1/chat").compactMap { request in
            let body = try? JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any]
            return ((body?["input"] as? [[String: Any]])?.first)?["type"] as? String
        }
    }

    /// `chat.md` spells the text item `message` in its reference and `text` in its example: a server that takes only
    /// `message` gets it after one refused try, and keeps getting it from this client and its copies.
    @Test func aServerThatRefusesTheTextItemSpellingGetsTheOtherOnce() async throws {
        let fixture = try SimulatorFixture(SimulatorOptions(inputTextType: "message"))
        let client = client(fixture)
        let request = ChatRequest(
            model: "acme/vision-7b", input: ChatInput(text: "what is this?", imageDataURLs: [Self.image]))
        let first = try await client.chat(request)
        #expect(
            first.output.last.map {
                if case .message(let text) = $0 { text.description.contains("1 image") } else { false }
            } == true)
        #expect(textItemTypes(fixture) == ["text", "message"])
        let copy = client
        var events: [ChatEvent] = []
        for try await event in try await copy.streamChat(request) { events.append(event) }
        #expect(events.contains { if case .chatEnd = $0 { true } else { false } })
        #expect(textItemTypes(fixture) == ["text", "message", "message"], "remembered: no second refused try")
    }

    @Test func aServerThatTakesTextIsSentTextOnly() async throws {
        let fixture = try SimulatorFixture()
        _ = try await client(fixture).chat(
            ChatRequest(model: "acme/vision-7b", input: ChatInput(text: "see", imageDataURLs: [Self.image])))
        #expect(textItemTypes(fixture) == ["text"])
    }

    /// Any other refusal of the input is not retried.
    @Test func otherRefusalsAreNotRetried() async throws {
        let fixture = try SimulatorFixture()
        await #expect(throws: LMStudioError.self) {
            try await client(fixture).chat(
                ChatRequest(model: "acme/tiny-1b", input: ChatInput(text: "see", imageDataURLs: [Self.image])))
        }
        #expect(fixture.requests(to: "/api/v1/chat").count == 1)
    }

    /// A reply a proxy compressed (`Content-Encoding: gzip`) is decoded, streamed or not.
    @Test func gzipCompressedRepliesAreDecoded() async throws {
        let fixture = try SimulatorFixture(SimulatorOptions(defaultFaults: "gzip"))
        let client = client(fixture)
        let result = try await client.chat(ChatRequest(model: "acme/tiny-1b", input: .text("echo:squeezed")))
        #expect(result.output == [.message("squeezed")])
        var text = ""
        var ended = false
        for try await event in try await client.streamChat(
            ChatRequest(model: "acme/tiny-1b", input: .text("echo:streamed and squeezed")))
        {
            if case .messageDelta(let delta) = event { text += delta }
            if case .chatEnd = event { ended = true }
        }
        #expect(text == "streamed and squeezed" && ended)
        #expect(fixture.requests(to: "/api/v1/chat").last?.headers["accept-encoding"]?.contains("gzip") == true)
    }

    /// A 403 to a known token says what it means: a permission that token lacks.
    @Test func forbiddenIsAMissingPermissionNotAWrongToken() async throws {
        let token = "sk-lm-abcd1234:abcdefghij0123456789"
        let limited = "sk-lm-list0000:listlistlistlistlist"
        let fixture = try SimulatorFixture(SimulatorOptions(requireToken: token, listOnlyToken: limited))
        #expect(try await client(fixture, token: limited).models().isEmpty == false)
        do {
            _ = try await client(fixture, token: limited).load(LoadRequest(model: "acme/thinker-8b"))
            Issue.record("a list-only token loaded a model")
        } catch let error as LMStudioError {
            guard case .tokenLacksPermission = error else {
                Issue.record("got \(error)")
                return
            }
            #expect(
                error.description.contains(
                    "the token lacks permission for this request (LM Studio's per-token permissions)"))
            #expect(!error.description.contains(limited))
        }
        await #expect(throws: LMStudioError.tokenRejected) {
            try await client(fixture, token: "sk-lm-zzzz9999:zzzzzzzzzz9999999999").models()
        }
    }

    /// The documented sampling ranges are enforced by the simulator; a refusal names the parameter and the bound.
    @Test(arguments: [
        ("temperature", 1.5, "less than or equal to 1"), ("top_p", -0.1, "greater than or equal to 0"),
        ("min_p", 2.0, "less than or equal to 1")
    ])
    func aSamplingValueOutsideItsDocumentedRangeIsRefusedByName(name: String, value: Double, bound: String) async throws
    {
        let fixture = try SimulatorFixture()
        var request = ChatRequest(model: "acme/tiny-1b", input: .text("hi"))
        switch name {
        case "temperature": request.temperature = value
        case "top_p": request.topP = value
        default: request.minP = value
        }
        do {
            _ = try await client(fixture).chat(request)
            Issue.record("\(name) \(value) was accepted")
        } catch let error as LMStudioError {
            guard case .invalidRequest(_, let param, _) = error else {
                Issue.record("got \(error)")
                return
            }
            #expect(param == name)
            #expect(error.description.contains(name) && error.description.contains(bound), "\(error.description)")
        }
    }
}
