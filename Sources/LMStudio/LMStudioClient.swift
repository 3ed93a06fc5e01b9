import Foundation
import HTTP
import Synchronization

/// Talks to one LM Studio server over its v1 REST API.
///
/// Every call throws ``LMStudioError``. A token is sent as
/// `Authorization: Bearer` only when one is set, and refused before any
/// request only when it cannot go in a header. Copies share what the client learnt
/// of the server (the spelling of text input items).
public struct LMStudioClient: Sendable, CustomStringConvertible {
    /// The base URL without trailing slash, e.g. `http://localhost:1234`.
    public let server: String
    private let token: String?
    private let transport: any Transport
    private let timeouts: HTTPTimeouts
    private let userAgent: String
    private let textItemType = TextItemSpelling()

    /// The `User-Agent` sent when none is given: the client's name, distinct from LM Studio's own daemon `llmster`.
    public static let defaultUserAgent = "llmster-client"

    /// The idle limit for replies the server sends only when done (loads, non-streaming chats), in seconds.
    public static let slowReplyIdleLimit: Double = 900
    /// The largest JSON reply accepted.
    public static let maxReplyBytes = 64 << 20

    /// Creates a client; a trailing slash in `server` is ignored. `userAgent` should name the client and its
    /// version, e.g. `llmster-client/0.1.0`.
    public init(
        server: String, token: String?, transport: any Transport, timeouts: HTTPTimeouts = HTTPTimeouts(),
        userAgent: String = LMStudioClient.defaultUserAgent
    ) {
        var server = server
        while server.hasSuffix("/") { server.removeLast() }
        self.server = server
        self.token = token
        self.transport = transport
        self.timeouts = timeouts
        self.userAgent = userAgent
    }

    public var description: String {
        "LMStudioClient(server: \(server), token: \(token == nil ? "none" : "(redacted)"))"
    }

    /// Asks whether the server is LM Studio; a server that is something else answers `lmstudio == false`.
    public func greeting() async throws -> Greeting {
        let response: HTTPResponse
        do { response = try await send("GET", "/lmstudio-greeting", allowingStatus: 404) } catch LMStudioError
            .notLMStudio
        { return Greeting(lmstudio: false) }
        let body = try await collect(response, limit: 1 << 20)
        guard response.status != 404, let greeting = try? JSONDecoder().decode(Greeting.self, from: Data(body)) else {
            return Greeting(lmstudio: false)
        }
        return greeting
    }

    /// Every downloaded model, LLMs and embedding models, with their loaded instances.
    public func models() async throws -> [Model] {
        try await decode(ModelList.self, from: send("GET", "/api/v1/models")).models
    }

    /// Loads a model and returns once it is loaded, waiting up to ``slowReplyIdleLimit`` for the reply.
    public func load(_ request: LoadRequest) async throws -> LoadResponse {
        try await decode(
            LoadResponse.self, from: send("POST", "/api/v1/models/load", json: request, idle: Self.slowReplyIdleLimit))
    }

    /// Unloads one loaded instance, named by its `loaded_instances[].id`.
    public func unload(instanceId: String) async throws {
        _ = try await collect(
            send("POST", "/api/v1/models/unload", json: UnloadRequest(instanceId: instanceId)),
            limit: Self.maxReplyBytes)
    }

    /// Starts downloading a model.
    public func download(_ request: DownloadRequest) async throws -> DownloadStatus {
        try await decode(DownloadStatus.self, from: send("POST", "/api/v1/models/download", json: request))
    }

    /// Polls a download job.
    public func downloadStatus(jobId: String) async throws -> DownloadStatus {
        let escaped = jobId.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? jobId
        return try await decode(DownloadStatus.self, from: send("GET", "/api/v1/models/download/status/" + escaped))
    }

    /// Runs one chat turn without streaming, waiting up to ``slowReplyIdleLimit`` for the reply; reasoning a model
    /// wrote in `<think>` tags is separated, as in a stream (``ThinkTagSplitter``).
    public func chat(_ request: ChatRequest) async throws -> ChatResult {
        var request = request
        request.stream = false
        return ThinkTagSplitter.splitting(
            try await decode(ChatResult.self, from: sendChat(request, idle: Self.slowReplyIdleLimit)))
    }

    /// Runs one chat turn as a stream of events, read from the network only as fast as they are consumed.
    ///
    /// Throws before streaming when the server refuses the request. The stream
    /// ends without error when the server ends the body: only a ``ChatEvent/chatEnd(_:)``
    /// proves the reply complete. It throws ``LMStudioError/replyConnectionLost(detail:)``
    /// when the connection breaks mid-reply, ``LMStudioError/timedOut(server:phase:)``
    /// when the server goes silent, ``LMStudioError/stream(_:)`` for an oversize
    /// event and ``LMStudioError/cancelled`` (or it simply ends) when the consuming task is cancelled.
    /// Each `next()` parses only as much of the body as it needs; nothing is
    /// queued ahead beyond the transport's bounded read-ahead. Iterate it from
    /// one task; ending the iteration cancels the transfer.
    public func streamChat(_ request: ChatRequest) async throws -> AsyncThrowingStream<ChatEvent, any Error> {
        var request = request
        request.stream = true
        let response = try await sendChat(request, accept: "text/event-stream")
        if response.headers["content-type"]?.contains("json") == true {
            let body = try await collect(response, limit: Self.maxReplyBytes)
            throw LMStudioError.error(status: response.status, body: body, tokenSent: token != nil)
                ?? .invalidResponse("expected an event stream, got a JSON body")
        }
        let reader = ChatEventReader(body: response.body, server: server)
        return AsyncThrowingStream { try await reader.next() }
    }

    /// Posts a chat request with text items spelt as the server takes them.
    ///
    /// The docs spell a text input item `message` in the reference and `text` in the example (`chat.md`); servers
    /// have been seen to take only `text`, which is sent first. When the server refuses the item type, the other
    /// spelling is tried once and, if taken, kept for every later request of this client and its copies.
    private func sendChat(_ request: ChatRequest, idle: Double? = nil, accept: String = "application/json") async throws
        -> HTTPResponse
    {
        let spelling = textItemType.current
        do {
            return try await send(
                "POST", "/api/v1/chat", json: request, idle: idle, accept: accept, textItemType: spelling)
        } catch let error as LMStudioError {
            guard request.input.hasTextItems, error.refusesTextItemType else { throw error }
            let other = InputItem.otherTextType(than: spelling)
            let response = try await send(
                "POST", "/api/v1/chat", json: request, idle: idle, accept: accept, textItemType: other)
            textItemType.current = other
            return response
        }
    }

    private func send(
        _ method: String, _ path: String, json body: (some Encodable)? = Optional<Int>.none,
        idle: Double? = nil, accept: String = "application/json", allowingStatus allowed: Int? = nil,
        textItemType: String = InputItem.defaultTextType
    ) async throws -> HTTPResponse {
        if let token, !Credentials.isSendable(token) { throw LMStudioError.malformedToken }
        var headers = ["Accept": accept, "User-Agent": userAgent]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        var encoded: [UInt8]?
        if let body {
            headers["Content-Type"] = "application/json"
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            encoder.userInfo[InputItem.textTypeKey] = textItemType
            do {
                encoded = Array(try encoder.encode(body))
            } catch {
                throw LMStudioError.invalidResponse("cannot encode the request: \(error)")
            }
        }
        var limits = timeouts
        if let idle { limits.idle = max(limits.idle, idle) }
        let request = HTTPRequest(method: method, url: server + path, headers: headers, body: encoded, timeouts: limits)
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw LMStudioError.from(error, server: server)
        }
        if !(200..<300).contains(response.status), response.status != allowed {
            let body = try await collect(response, limit: 64 << 10, truncating: true)
            throw LMStudioError.error(status: response.status, body: body, tokenSent: token != nil)
                ?? .server(status: response.status, message: "unexpected status")
        }
        // A web server, proxy or captive portal at the address answers with a page, not LM Studio's API.
        if (200..<300).contains(response.status), let type = response.headers["content-type"],
            type.lowercased().contains("html")
        {
            throw LMStudioError.notLMStudio(server: server, contentType: type)
        }
        return response
    }

    private func collect(_ response: HTTPResponse, limit: Int, truncating: Bool = false) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        do {
            for try await chunk in response.body {
                bytes += chunk
                if bytes.count > limit {
                    if truncating { return Array(bytes.prefix(limit)) }
                    throw LMStudioError.invalidResponse("the reply is larger than \(limit) bytes")
                }
            }
        } catch {
            throw LMStudioError.from(error, server: server)
        }
        return bytes
    }

    private func decode<T: Decodable>(_ type: T.Type, from response: HTTPResponse) async throws -> T {
        let body = try await collect(response, limit: Self.maxReplyBytes)
        if let error = LMStudioError.error(status: response.status, body: body, tokenSent: token != nil) { throw error }
        do {
            return try JSONDecoder().decode(type, from: Data(body))
        } catch let error as DecodingError {
            throw LMStudioError.invalidResponse("\(T.self): \(Self.summary(of: error))")
        }
    }

    private static func summary(of error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing field \(path(context)).\(key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "unexpected value at \(path(context))"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "invalid value at \(path(context))"
        @unknown default: return "\(error)"
        }
    }
}

/// The text item spelling a client learnt its server takes, shared by the client's copies.
private final class TextItemSpelling: Sendable {
    private let spelling = Mutex(InputItem.defaultTextType)

    /// The spelling to send.
    var current: String {
        get { spelling.withLock { $0 } }
        set { spelling.withLock { $0 = newValue } }
    }
}

extension LMStudioError {
    /// Whether the server refused an input item's `type` (e.g. "Invalid discriminator value. Expected 'text' | 'image'").
    fileprivate var refusesTextItemType: Bool {
        guard case .invalidRequest(let message, let param, let code) = self else { return false }
        let lowered = message.lowercased()
        let namesInput = param?.hasPrefix("input") ?? lowered.contains("input")
        return namesInput
            && (code == "invalid_union_discriminator" || param?.hasSuffix("type") == true
                || lowered.contains("discriminator") || lowered.contains("'text'") || lowered.contains("'message'"))
    }
}
