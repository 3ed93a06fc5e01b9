import Chat
import Foundation
import LMStudio
import Synchronization

/// The editor protocol's server: reads framed JSON-RPC 2.0 requests, runs them on a `ChatSession`, writes answers.
///
/// Every request runs in its own task, so a streaming `chat/send` never holds up the rest;
/// `$/cancelRequest` cancels one, and the end of the input cancels them all, waits for their partial
/// replies to be saved and answered, and returns.
public actor RPCServer {
    /// The protocol version `initialize` must ask for.
    public static let protocolVersion = 1
    /// The coalescing interval when the client does not choose one.
    public static let defaultCoalesceMilliseconds = 50
    /// The deepest nesting of arrays and objects a message may have.
    public static let maximumNesting = 128

    /// Makes the session once `initialize` has fixed the configuration (coalescing interval included).
    public typealias SessionFactory = @Sendable (Configuration) throws -> ChatSession

    let framing: Framing
    /// llmster's version, reported by `initialize`.
    let version: String
    /// Settings as last read (at start, or by a reload), with the client's choices.
    var configuration: Configuration
    /// Where `config/set` saves.
    let configurationPath: String
    let makeSession: SessionFactory
    /// Reads the settings again (`config/reload`, or the file changed); nil: they stay as read at start.
    let reloadConfiguration: (@Sendable () throws -> Configuration)?
    /// The configuration file's state when its settings were last read (at `initialize` or a reload).
    var configurationStamp: ConfigurationStamp?
    private let methods: MethodRegistry
    private let output: @Sendable ([UInt8]) -> Void
    let log: @Sendable (String) -> Void
    var session: ChatSession?
    private var running: [String: Task<Void, Never>] = [:]
    /// Why the server is stopping, once a signal ended its input ("Stopped by SIGTERM"): the reason a reply it cancels
    /// is saved with, as `ask` and the REPL say it; nil until then (a cancelled request is "Cancelled").
    private let stopping = Mutex<String?>(nil)

    /// Says why the server stops (before its input ends), for the replies it cancels.
    public nonisolated func stop(because reason: String?) { stopping.withLock { $0 = reason } }

    /// The reason `stop(because:)` gave, if any.
    nonisolated var stopReason: String? { stopping.withLock { $0 } }
    /// The last request received on each ordered line of a conversation reference: the next one on that line starts
    /// after it ends. A conversation's turns are saved and answered in the order they were sent, and a read of its
    /// draft (`drafts/get`, or `conversations/get`, which editors open a chat with) after a write sent without waiting
    /// finds that write; drafts keep a line of their own, so that an editor's draft is never held behind a reply that
    /// is still streaming. A turn also waits for the draft requests received before it: a send clears the draft it
    /// sends, which a save of that draft still on its way would otherwise put back.
    private var lastOrderedRequest: [OrderedLine: Task<Void, Never>] = [:]

    /// Requests of one conversation that run one after another, in the order they arrived.
    private struct OrderedLine: Hashable {
        enum Kind { case turn, draft }
        let kind: Kind
        /// The conversation as the request names it (an id, prefix or title).
        let conversation: String

        /// The line `method` runs on, when it names a conversation and is ordered at all.
        init?(method: String, params: Params) {
            let parameter: String
            switch method {
            case "chat/send", "chat/withdraw": (kind, parameter) = (.turn, "conversationId")
            case "drafts/get", "drafts/set": (kind, parameter) = (.draft, "conversationId")
            case "conversations/get": (kind, parameter) = (.draft, "id")
            default: return nil
            }
            guard let conversation = (try? params.optionalString(parameter)) ?? nil else { return nil }
            self.conversation = conversation
        }

        private init(kind: Kind, conversation: String) {
            self.kind = kind
            self.conversation = conversation
        }

        /// The lines whose earlier requests a request on this line waits for: its own, and for a turn the draft's.
        var awaited: [OrderedLine] {
            kind == .turn ? [self, OrderedLine(kind: .draft, conversation: conversation)] : [self]
        }
    }
    /// Tells the client what other processes change in the library (`conversation/changed`), from `initialize` on.
    private var libraryWatch: Task<Void, Never>?
    /// How often the library is looked at for other processes' changes (one `PRAGMA data_version` each time).
    static let libraryWatchInterval: Duration = .milliseconds(500)

    /// Creates a server writing framed messages through `output` (which must be safe to call from any thread).
    ///
    /// `reloadConfiguration` reads the settings afresh, for `config/reload` and for a configuration file that changed.
    public init(
        framing: Framing, version: String, configuration: Configuration, configurationPath: String,
        methods: MethodRegistry = .standard, makeSession: @escaping SessionFactory,
        reloadConfiguration: (@Sendable () throws -> Configuration)? = nil,
        output: @escaping @Sendable ([UInt8]) -> Void, log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.framing = framing
        self.version = version
        self.configuration = configuration
        self.configurationPath = configurationPath
        self.methods = methods
        self.makeSession = makeSession
        self.reloadConfiguration = reloadConfiguration
        self.output = output
        self.log = log
    }

    /// Serves `input` until it ends or `shutdown` arrives; running requests are cancelled and answered first.
    ///
    /// A last message the end of input leaves unterminated is still served.
    public func run(input: AsyncStream<[UInt8]>) async {
        var parser = FrameParser(framing: framing)
        var shutDown = false
        reading: for await chunk in input {
            for frame in parser.feed(chunk) {
                guard await handle(frame) else { continue }
                shutDown = true
                break reading
            }
        }
        if !shutDown {
            for frame in parser.finish() {
                guard await handle(frame) else { continue }
                break
            }
        }
        await stopRunning()
    }

    /// Handles one frame; when it is `shutdown`, stops the running requests, answers it and returns true.
    private func handle(_ frame: Frame) async -> Bool {
        guard let shutdownId = await receive(frame) else { return false }
        await stopRunning()
        send(response: shutdownId, result: .null)
        return true
    }

    private func stopRunning() async {
        libraryWatch?.cancel()
        let tasks = Array(running.values)
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    /// Handles one frame; returns the request id when it is `shutdown`.
    private func receive(_ frame: Frame) async -> RequestId? {
        let bytes: [UInt8]
        switch frame {
        case .oversized(let limit):
            send(
                response: .null,
                error: RPCError(
                    code: RPCError.invalidRequestCode,
                    message: "A message longer than \(limit) bytes was skipped; send smaller messages.",
                    kind: "too_large"))
            return nil
        case .badHeader(let detail):
            send(response: .null, error: .parse(detail))
            return nil
        case .message(let message):
            bytes = message
        }
        let idText = JSONText.scalarMember("id", in: bytes)
        guard JSONText.depth(of: bytes) <= Self.maximumNesting else {
            let value = idText.flatMap { try? JSONValue.parsing(Array($0.utf8)) }
            send(
                response: value.map { RequestId($0, text: idText) } ?? .null,
                error: RPCError(
                    code: RPCError.invalidRequestCode,
                    message:
                        "Invalid request: the message nests arrays and objects deeper than \(Self.maximumNesting) levels.",
                    kind: "too_deep"))
            return nil
        }
        let value: JSONValue
        do { value = try JSONValue.parsing(bytes) } catch {
            send(response: .null, error: .parse("the message is not valid JSON"))
            return nil
        }
        guard case .object(let members) = value else {
            send(response: .null, error: .invalidRequest("a message must be a JSON object (batches are not supported)"))
            return nil
        }
        let id = members["id"].map { RequestId($0, text: idText) }
        if let id, !Self.isValidId(id.value) {
            send(response: .null, error: .invalidRequest("id must be a string or a number"))
            return nil
        }
        guard members["jsonrpc"] == .string("2.0"), case .string(let method)? = members["method"] else {
            if let id {
                send(response: id, error: .invalidRequest("expected \"jsonrpc\": \"2.0\" and a string \"method\""))
            }
            return nil
        }
        guard let id else {
            notification(method, members["params"])
            return nil
        }
        let params: Params
        do { params = try Params(members["params"]) } catch {
            send(response: id, error: error)
            return nil
        }
        switch method {
        case "initialize":
            initialize(id: id, params: params)
        case "shutdown":
            return id
        case "config/reload":
            await reload(id: id)
        default:
            await dispatch(method, id: id, params: params)
        }
        return nil
    }

    private func notification(_ method: String, _ params: JSONValue?) {
        guard method == "$/cancelRequest" else { return }
        guard let id = params?["id"], Self.isValidId(id) else { return }
        running[id.jsonString]?.cancel()
    }

    private func initialize(id: RequestId, params: Params) {
        do {
            guard session == nil else { throw RPCError.invalidRequest("initialize was already called") }
            let requested = try params.integer("protocolVersion")
            guard requested == Self.protocolVersion else {
                throw RPCError.invalidParams(
                    "protocolVersion \(requested) is not supported; this llmster speaks \(Self.protocolVersion)")
            }
            let interval = try params.optionalInteger("coalesceMilliseconds") ?? Self.defaultCoalesceMilliseconds
            let range = Configuration.displayIntervalRange
            guard range.contains(Double(interval)) else {
                throw RPCError.invalidParams("coalesceMilliseconds must be \(range.description)")
            }
            configuration.displayIntervalMilliseconds = interval
            configurationStamp = ConfigurationStamp(path: configurationPath)
            session = try makeSession(configuration)
            watchLibrary()
            send(
                response: id,
                result: .object([
                    "protocolVersion": .integer(Self.protocolVersion),
                    "serverInfo": .object(["name": .string("llmster"), "version": .string(version)]),
                    "server": .string(ServerURL.redactingPasswords(in: configuration.server)),
                    "capabilities": .object([
                        "coalesceMilliseconds": .integer(interval),
                        "framing": .string(framing.rawValue),
                        "methods": .array(methods.names.map(JSONValue.string)),
                        "events": .array(ChatEventTracker.eventTypes.map(JSONValue.string))
                    ])
                ]))
        } catch {
            send(response: id, error: RPCError.from(error))
        }
    }

    private func dispatch(_ method: String, id: RequestId, params: Params) async {
        await reloadIfChanged()
        guard let session else {
            send(
                response: id,
                error: RPCError(
                    code: RPCError.notInitializedCode, message: "Send initialize first.", kind: "not_initialized"))
            return
        }
        guard let handler = methods.handler(method) else {
            send(
                response: id,
                error: RPCError(
                    code: RPCError.methodNotFoundCode, message: "Unknown method \(method); see llmster-rpc(7).",
                    kind: "method_not_found"))
            return
        }
        let key = id.value.jsonString
        guard running[key] == nil else {
            send(response: id, error: .invalidRequest("request id \(id.text) is already in use"))
            return
        }
        let context = RequestContext(id: id.value, session: session, server: self)
        let line = OrderedLine(method: method, params: params)
        let earlier = line?.awaited.compactMap { lastOrderedRequest[$0] } ?? []
        let task = Task {
            do {
                if !earlier.isEmpty {
                    // Cancelled while it waited for the line's earlier requests: it never runs.
                    for request in earlier { await request.value }
                    try Task.checkCancellation()
                }
                let result = try await handler(context, params)
                self.send(response: id, result: result)
            } catch {
                self.send(response: id, error: RPCError.from(error))
            }
            self.finished(key, line: line)
        }
        running[key] = task
        if let line { lastOrderedRequest[line] = task }
    }

    private func finished(_ key: String, line: OrderedLine?) {
        if let line, lastOrderedRequest[line] == running[key] {
            lastOrderedRequest.removeValue(forKey: line)
        }
        running.removeValue(forKey: key)
    }

    /// Sends `conversation/changed` `{conversationId, updatedAt}` for each conversation another process changes (the
    /// REPL, `ask -c`, another editor's llmster), looking every `libraryWatchInterval`; this process's own writes are
    /// not reported.
    private func watchLibrary() {
        libraryWatch = Task {
            var watch = LibraryWatch()
            while !Task.isCancelled {
                if let session, let (next, changed) = try? await session.conversationsChangedElsewhere(since: watch) {
                    watch = next
                    for change in changed {
                        notify(
                            "conversation/changed",
                            .object([
                                "conversationId": .string(change.id),
                                "updatedAt": .string(ISO8601DateFormatter().string(from: change.updatedAt))
                            ]))
                    }
                }
                try? await Task.sleep(for: Self.libraryWatchInterval)
            }
        }
    }

    /// How many requests other than `id` are running.
    func runningCount(besides id: JSONValue) -> Int {
        running.keys.filter { $0 != id.jsonString }.count
    }

    nonisolated func send(response id: RequestId, result: JSONValue) {
        writeResponse(id, "result", result)
    }

    /// Sends an error response; a password in a server address in its message is hidden.
    nonisolated func send(response id: RequestId, error: RPCError) {
        var error = error
        error.message = ServerURL.redactingPasswords(in: error.message)
        if error.code == RPCError.parseErrorCode || error.code == RPCError.internalErrorCode {
            log("llmster rpc: \(error.message)")
        }
        writeResponse(id, "error", error.json)
    }

    /// Writes a response with members in `jsonString`'s sorted order and the id as the client wrote it.
    private nonisolated func writeResponse(_ id: RequestId, _ name: String, _ value: JSONValue) {
        output(framing.frame("{\"\(name)\":\(value.jsonString),\"id\":\(id.text),\"jsonrpc\":\"2.0\"}"))
    }

    /// Sends a notification.
    nonisolated func notify(_ method: String, _ params: JSONValue) {
        write(.object(["jsonrpc": .string("2.0"), "method": .string(method), "params": params]))
    }

    private nonisolated func write(_ message: JSONValue) {
        output(framing.frame(message.jsonString))
    }

    private static func isValidId(_ id: JSONValue) -> Bool {
        switch id {
        case .string, .number: true
        default: false
        }
    }
}

/// What a method handler gets besides its parameters.
public struct RequestContext: Sendable {
    /// The request's id.
    public let id: JSONValue
    public let session: ChatSession
    let server: RPCServer

    /// Sends a notification to the client.
    public func notify(_ method: String, _ params: JSONValue) { server.notify(method, params) }
}

/// A request's id as its response echoes it.
struct RequestId: Sendable {
    /// The id as decoded.
    let value: JSONValue
    /// The id's JSON text in the response: a number exactly as the client wrote it (so ids above 2^53, `-0`
    /// or `1.50` come back unchanged), anything else as llmster writes it.
    let text: String

    /// The id of a response to a message whose id could not be read.
    static let null = RequestId(.null, text: nil)

    /// Echoes `value`, using the client's own `text` when it is a number.
    init(_ value: JSONValue, text: String?) {
        self.value = value
        if case .number = value, let text, !text.isEmpty, text.utf8.allSatisfy({ Self.numberBytes.contains($0) }) {
            self.text = text
        } else {
            self.text = value.jsonString
        }
    }

    private static let numberBytes = Set("0123456789+-.eE".utf8)
}
