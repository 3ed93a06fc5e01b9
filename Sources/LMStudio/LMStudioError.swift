import Foundation
import HTTP
import SystemSupport

/// What went wrong talking to LM Studio, worded for the person at the keyboard.
public enum LMStudioError: Error, CustomStringConvertible, LocalizedError, Equatable, Sendable {
    /// No connection; `reason` reads like "connection refused".
    case unreachable(server: String, reason: String)
    /// The server did not connect or went silent.
    case timedOut(server: String, phase: TimeoutPhase)
    /// The TLS handshake or certificate check failed.
    case tls(server: String, reason: String)
    /// The connection broke or carried something other than HTTP.
    case connectionLost(server: String, reason: String)
    /// The server requires a token and none was sent.
    case tokenMissing
    /// The server refused the token that was sent (HTTP 401).
    case tokenRejected
    /// The server knows the token but it may not make this request (HTTP 403: LM Studio's per-token permissions).
    case tokenLacksPermission(message: String)
    /// The configured token cannot be sent in an HTTP header; nothing was sent.
    case malformedToken
    /// The server predates the v1 REST API (LM Studio 0.4).
    case serverTooOld
    /// The server does not know the model; carries its message.
    case modelNotFound(String)
    /// HTTP 400: the server refused a field or value.
    case invalidRequest(message: String, param: String?, code: String?)
    /// Any other failure status, with the server's message.
    case server(status: Int, message: String)
    /// The reply could not be understood.
    case invalidResponse(String)
    /// The address answered with a web page (`contentType`), not LM Studio's API.
    case notLMStudio(server: String, contentType: String)
    /// The connection broke while the reply streamed; what arrived before it stands.
    case replyConnectionLost(detail: String)
    /// The event stream broke, e.g. an event over the size limit.
    case stream(String)
    case cancelled

    public var description: String { description(credentialsFile: nil) }

    /// The message, naming `credentialsFile` (the one in effect, e.g. `Paths.credentialsFile`) as the place for a token;
    /// nil names the default place.
    public func description(credentialsFile: String?) -> String {
        let credentials =
            credentialsFile
            ?? "the credentials file ($XDG_CONFIG_HOME/llmster/credentials, default ~/.config/llmster/credentials)"
        return switch self {
        case .unreachable(let server, let reason):
            "LM Studio is not reachable at \(server) (\(reason)). Is the server running? Try `lms server start`."
        case .timedOut(let server, .connect):
            "Connecting to LM Studio at \(server) timed out. Is the address right and the machine awake?"
        case .timedOut(let server, .idle):
            "LM Studio at \(server) stopped responding: nothing arrived within the idle timeout (the `idle_timeout` setting)."
        case .tls(let server, let reason):
            "The secure connection to \(server) failed: \(reason)."
        case .connectionLost(let server, let reason):
            "The connection to LM Studio at \(server) failed: \(reason)."
        case .tokenMissing:
            "LM Studio requires an API token. Set LM_API_TOKEN, or save it as a `token = …` line in \(credentials) (chmod 600)."
        case .tokenRejected:
            "LM Studio rejected the API token. Check LM_API_TOKEN or \(credentials) against the token in LM Studio's server settings."
        case .tokenLacksPermission(let message):
            "LM Studio refused this request: the token lacks permission for this request (LM Studio's per-token permissions)."
                + (message.isEmpty ? "" : " The server said: \(message).")
                + " Give the token that permission in LM Studio's Developer → Server Settings → Manage Tokens, or use another token."
        case .malformedToken:
            "The API token cannot be sent: it is empty or contains spaces, control or non-ASCII characters. Nothing was sent."
        case .serverTooOld:
            "LM Studio 0.4 or newer is required: this server does not offer the /api/v1 REST API. Please update LM Studio."
        case .modelNotFound(let message):
            "Model not found: \(message). `llmster models` lists the downloaded models."
        case .invalidRequest(let message, let param, _):
            if let param {
                "LM Studio refused the request (\(param)): \(message)"
            } else {
                "LM Studio refused the request: \(message)"
            }
        case .server(let status, let message):
            "LM Studio answered with HTTP \(status): \(message)"
        case .invalidResponse(let detail):
            "LM Studio sent a reply llmster cannot read: \(detail)"
        case .notLMStudio(let server, let contentType):
            "\(server) answered with an HTML page (\(Self.sanitized(contentType, limit: 80))), not LM Studio's API. Is this the address of the LM Studio server?"
        case .replyConnectionLost(let detail):
            "connection lost (\(detail))"
        case .stream(let detail):
            "The reply stream broke: \(detail)"
        case .cancelled:
            "The request was cancelled."
        }
    }

    public var errorDescription: String? { description }

    /// The error an HTTP reply stands for, or nil when it is a success.
    ///
    /// Reads `{"error":{…}}`, `{"error":"…"}` or raw text; server text is
    /// stripped of control characters and shortened. A 200 whose body is
    /// `{"error":"Unexpected endpoint or method. (…)"}` is a pre-0.4 server.
    public static func error(status: Int, body: [UInt8], tokenSent: Bool) -> LMStudioError? {
        let payload = errorPayload(in: body)
        if let payload, payload.message.hasPrefix("Unexpected endpoint or method") { return .serverTooOld }
        if (200..<300).contains(status) {
            return payload.map { .server(status: status, message: sanitized($0.message)) }
        }
        if status == 403, tokenSent {
            return .tokenLacksPermission(message: payload.map { sanitized($0.message, limit: 200) } ?? "")
        }
        if status == 401 || status == 403 { return tokenSent ? .tokenRejected : .tokenMissing }
        let message = sanitized(payload?.message ?? String(decoding: body, as: UTF8.self))
        let fallback = message.isEmpty ? "(no message)" : message
        if payload?.type == "model_not_found" || payload?.code == "model_not_found" { return .modelNotFound(fallback) }
        if status == 400 {
            return .invalidRequest(
                message: fallback, param: payload?.param.map { sanitized($0) },
                code: payload?.code.map { sanitized($0) })
        }
        return .server(status: status, message: fallback)
    }

    /// Maps a transport failure for `server`.
    static func from(_ error: any Error, server: String) -> LMStudioError {
        switch error {
        case let error as LMStudioError: error
        case is CancellationError: .cancelled
        case let error as HTTPError:
            switch error {
            case .unreachable(_, let reason): .unreachable(server: server, reason: reason)
            case .timedOut(_, let phase): .timedOut(server: server, phase: phase)
            case .tls(_, let reason): .tls(server: server, reason: reason)
            case .invalidURL: .invalidResponse("\(server) is not a valid http or https server address")
            case .transfer(_, let reason): .connectionLost(server: server, reason: reason)
            case .bodyTooLarge(let limit): .invalidResponse("the reply is larger than \(limit) bytes")
            case .cancelled: .cancelled
            }
        case let error as SSEError: .stream(error.description)
        default: .invalidResponse("\(error)")
        }
    }

    private static func errorPayload(in body: [UInt8]) -> APIErrorPayload? {
        struct Envelope: Decodable { var error: APIErrorPayload }
        return try? JSONDecoder().decode(Envelope.self, from: Data(body)).error
    }

    /// Server text made safe to print: each of `UnsafeScalars` becomes a space, long text is cut.
    static func sanitized(_ text: String, limit: Int = 500) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append(UnsafeScalars.contains(scalar) ? " " : scalar)
        }
        let clean = String(scalars).trimmingCharacters(in: .whitespaces)
        return clean.count > limit ? String(clean.prefix(limit)) + "…" : clean
    }
}
