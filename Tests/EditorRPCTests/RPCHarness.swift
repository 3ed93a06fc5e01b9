import Chat
import EditorRPC
import Foundation
import HTTP
import LMStudio
import Library
import TestSupport

/// An `RPCServer` driven in-process: requests go in as bytes, framed answers come out and are parsed.
actor RPCHarness {
    let sandbox: Sandbox
    let server: RPCServer
    let framing: Framing
    private let input: AsyncStream<[UInt8]>.Continuation
    private var output: AsyncStream<[UInt8]>.AsyncIterator
    private var parser: FrameParser
    private var pending: [JSONValue] = []
    private let running: Task<Void, Never>
    private var nextId = 100

    /// Starts a server talking to `serverURL` in a fresh sandbox (or `librarySandbox`'s, as a second process on the
    /// same library), with further `settings` (config keys and values) and `methods` in place of the standard ones.
    init(
        serverURL: String, framing: Framing = .jsonLines, settings: [(String, String)] = [],
        librarySandbox: Sandbox? = nil, methods: MethodRegistry = .standard
    ) throws {
        let sandbox = try librarySandbox ?? Sandbox()
        self.sandbox = sandbox
        self.framing = framing
        parser = FrameParser(framing: framing)
        var configuration = Configuration()
        try configuration.setValue(serverURL, forKey: "server")
        for (key, value) in settings { try configuration.setValue(value, forKey: key) }
        let libraryPath = sandbox.libraryPath
        let (outputStream, outputContinuation) = AsyncStream.makeStream(of: [UInt8].self)
        output = outputStream.makeAsyncIterator()
        server = RPCServer(
            framing: framing, version: "test", configuration: configuration,
            configurationPath: sandbox.root + "/config/llmster/config", methods: methods,
            makeSession: { configuration in
                let client = LMStudioClient(server: configuration.server, token: nil, transport: CurlTransport())
                return ChatSession(
                    client: client, library: try LibraryStore(path: libraryPath), configuration: configuration,
                    makeClient: { LMStudioClient(server: $0.server, token: nil, transport: CurlTransport()) })
            },
            reloadConfiguration: { [configurationPath = sandbox.root + "/config/llmster/config"] in
                var fresh = try Configuration.load(path: configurationPath)
                try fresh.setValue(serverURL, forKey: "server")
                return fresh
            },
            output: { outputContinuation.yield($0) })
        let (inputStream, inputContinuation) = AsyncStream.makeStream(of: [UInt8].self)
        input = inputContinuation
        // A hung server must fail the test, not hang it; the watchdog ends with the server, not 120 s after the test.
        let watchdog = Task {
            try? await Task.sleep(for: .seconds(120))
            outputContinuation.finish()
        }
        running = Task { [server] in
            await server.run(input: inputStream)
            watchdog.cancel()
            outputContinuation.finish()
        }
    }

    /// Sends raw bytes as they are.
    func sendRaw(_ text: String) { input.yield(Array(text.utf8)) }

    /// Sends one message in the harness's framing.
    func send(_ message: JSONValue) { input.yield(framing.frame(message.jsonString)) }

    /// Sends a request and returns its id.
    @discardableResult
    func request(_ method: String, _ params: [String: JSONValue]? = nil) -> JSONValue {
        nextId += 1
        var message: [String: JSONValue] = ["jsonrpc": "2.0", "id": .number(Double(nextId)), "method": .string(method)]
        if let params { message["params"] = .object(params) }
        send(.object(message))
        return .number(Double(nextId))
    }

    /// Sends a notification.
    func notify(_ method: String, _ params: [String: JSONValue]) {
        send(.object(["jsonrpc": "2.0", "method": .string(method), "params": .object(params)]))
    }

    /// Ends the input, as an editor closing the pipe does, and waits for the server to finish.
    func closeInput() async {
        input.finish()
        await running.value
    }

    /// Reads messages until the first `message.delta` event; false when the server stopped before one.
    func waitForAnswerText() async -> Bool {
        while let message = await next() {
            if message["params"]?["type"] == "message.delta" { return true }
        }
        return false
    }

    /// The next message the server wrote, or nil when it stopped.
    func next() async -> JSONValue? {
        while pending.isEmpty {
            var iterator = output
            let chunk = await iterator.next(isolation: self)
            output = iterator
            guard let chunk else { return nil }
            for frame in parser.feed(chunk) {
                guard case .message(let bytes) = frame else { continue }
                pending.append((try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))) ?? .string("unparsable"))
            }
        }
        return pending.removeFirst()
    }

    /// Reads until the response to `id`; returns it with the notifications that came first.
    func response(to id: JSONValue) async -> (response: JSONValue?, notifications: [JSONValue]) {
        var notifications: [JSONValue] = []
        while let message = await next() {
            if message["id"] == id, message["method"] == nil { return (message, notifications) }
            notifications.append(message)
        }
        return (nil, notifications)
    }

    /// Sends a request and waits for its answer.
    func call(_ method: String, _ params: [String: JSONValue]? = nil) async -> JSONValue? {
        await response(to: request(method, params)).response
    }

    /// Sends `initialize` and returns its answer.
    @discardableResult
    func initialize(_ extra: [String: JSONValue] = [:]) async -> JSONValue? {
        await call("initialize", ["protocolVersion": 1].merging(extra) { $1 })
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    /// The member `name` of an object.
    subscript(_ name: String) -> JSONValue? {
        if case .object(let members) = self { return members[name] } else { return nil }
    }

    var string: String? { if case .string(let value) = self { value } else { nil } }
    var int: Int? { if case .number(let value) = self { Int(value) } else { nil } }
    var array: [JSONValue] { if case .array(let value) = self { value } else { [] } }
    /// `error.data.kind` of a response.
    var errorKind: String? { self["error"]?["data"]?["kind"]?.string }
    var errorCode: Int? { self["error"]?["code"]?.int }
}
