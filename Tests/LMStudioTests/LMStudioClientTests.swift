import Foundation
import HTTP
import Synchronization
import Testing

@testable import LMStudio

/// A transport that records requests and answers from a closure.
struct FakeTransport: Transport {
    final class Log: Sendable {
        private let stored = Mutex<[HTTPRequest]>([])
        var requests: [HTTPRequest] { stored.withLock { $0 } }
        func append(_ request: HTTPRequest) { stored.withLock { $0.append(request) } }
    }

    let log = Log()
    let respond: @Sendable (HTTPRequest) throws -> HTTPResponse

    init(_ respond: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) {
        self.respond = respond
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        log.append(request)
        return try respond(request)
    }

    /// The only request sent.
    var request: HTTPRequest? { log.requests.count == 1 ? log.requests[0] : nil }
}

/// A 200 reply with the given body.
func reply(_ body: String, status: Int = 200, contentType: String = "application/json") -> HTTPResponse {
    HTTPResponse(status: status, headers: ["Content-Type": contentType], chunks: [Array(body.utf8)])
}

/// The JSON object a request sent.
func sentJSON(_ request: HTTPRequest?) throws -> JSONValue? {
    try request?.body.map { try JSONDecoder().decode(JSONValue.self, from: Data($0)) }
}

struct LMStudioClientTests {
    @Test func bearerIsSentOnlyWhenATokenIsSet() async throws {
        let anonymous = FakeTransport { _ in reply(#"{"models":[]}"#) }
        _ = try await LMStudioClient(server: "http://localhost:1234/", token: nil, transport: anonymous).models()
        #expect(anonymous.request?.headers["Authorization"] == nil)
        #expect(anonymous.request?.url == "http://localhost:1234/api/v1/models")
        #expect(anonymous.request?.method == "GET")

        let authorised = FakeTransport { _ in reply(#"{"models":[]}"#) }
        _ = try await LMStudioClient(server: "http://box:1234", token: goodToken, transport: authorised).models()
        #expect(authorised.request?.headers["Authorization"] == "Bearer \(goodToken)")
    }

    @Test func unsendableTokenIsRefusedBeforeSending() async {
        let transport = FakeTransport { _ in reply("{}") }
        await #expect(throws: LMStudioError.malformedToken) {
            try await LMStudioClient(server: "http://localhost:1234", token: "hunter 2", transport: transport).models()
        }
        #expect(transport.log.requests.isEmpty)
    }

    /// A token of an unusual shape is sent: the docs give no token format.
    @Test func unusualTokenShapeIsSent() async throws {
        let transport = FakeTransport { _ in reply(#"{"models":[]}"#) }
        _ = try await LMStudioClient(server: "http://localhost:1234", token: "hunter2", transport: transport).models()
        #expect(transport.request?.headers["Authorization"] == "Bearer hunter2")
    }

    /// The User-Agent names the client, not LM Studio's own daemon `llmster`.
    @Test func userAgentNamesTheClient() async throws {
        let transport = FakeTransport { _ in reply(#"{"models":[]}"#) }
        _ = try await LMStudioClient(
            server: "http://localhost:1234", token: nil, transport: transport, userAgent: "llmster-client/9.9"
        ).models()
        #expect(transport.request?.headers["User-Agent"] == "llmster-client/9.9")
        _ = try await LMStudioClient(server: "http://localhost:1234", token: nil, transport: transport).models()
        #expect(transport.log.requests.last?.headers["User-Agent"] == "llmster-client")
    }

    @Test func modelsAreDecoded() async throws {
        let client = LMStudioClient(
            server: "http://localhost:1234", token: nil, transport: FakeTransport { _ in reply(modelsJSON) })
        #expect(
            try await client.models().map(\.key) == [
                "qwen/qwen3-4b", "text-embedding-nomic-embed-text-v1.5", "google/gemma-3n", "x/y"
            ])
    }

    @Test func loadPostsItsBodyAndWaitsLonger() async throws {
        let transport = FakeTransport { _ in
            reply(#"{"type":"llm","instance_id":"m","load_time_seconds":1.5,"status":"loaded"}"#)
        }
        let client = LMStudioClient(server: "http://localhost:1234", token: nil, transport: transport)
        let loaded = try await client.load(LoadRequest(model: "m", contextLength: 8192))
        #expect(loaded.instanceId == "m")
        #expect(transport.request?.url == "http://localhost:1234/api/v1/models/load")
        #expect(transport.request?.headers["Content-Type"] == "application/json")
        #expect(try sentJSON(transport.request) == .object(["model": .string("m"), "context_length": .number(8192)]))
        #expect((transport.request?.timeouts.idle ?? 0) >= LMStudioClient.slowReplyIdleLimit)
    }

    @Test func unloadAndDownloadUseTheirPaths() async throws {
        let transport = FakeTransport { request in
            request.url.hasSuffix("unload")
                ? reply(#"{"instance_id":"m:2"}"#) : reply(#"{"job_id":"job 1","status":"downloading"}"#)
        }
        let client = LMStudioClient(server: "http://localhost:1234", token: nil, transport: transport)
        try await client.unload(instanceId: "m:2")
        #expect(try await client.download(DownloadRequest(model: "qwen/qwen3-4b")).jobId == "job 1")
        _ = try await client.downloadStatus(jobId: "job 1")
        let requests = transport.log.requests
        #expect(
            requests.map(\.url) == [
                "http://localhost:1234/api/v1/models/unload",
                "http://localhost:1234/api/v1/models/download",
                "http://localhost:1234/api/v1/models/download/status/job%201"
            ])
        #expect(try sentJSON(requests[0]) == .object(["instance_id": .string("m:2")]))
        #expect(requests[2].method == "GET" && requests[2].body == nil)
    }

    @Test func chatSendsStreamFalseAndDecodesTheResult() async throws {
        let transport = FakeTransport { _ in
            reply(#"{"model_instance_id":"m","output":[{"type":"message","content":"hi"}],"response_id":"resp_2"}"#)
        }
        let client = LMStudioClient(server: "http://localhost:1234", token: nil, transport: transport)
        let result = try await client.chat(ChatRequest(model: "m", input: .text("hello"), store: true))
        #expect(result.output == [.message("hi")] && result.responseId == "resp_2")
        #expect(
            try sentJSON(transport.request)
                == .object([
                    "model": .string("m"), "input": .string("hello"), "store": .bool(true), "stream": .bool(false)
                ]))
    }

    @Test func streamChatDecodesEventsAcrossOddChunks() async throws {
        let bytes = Array(recordedChatStream.utf8)
        let transport = FakeTransport { _ in
            HTTPResponse(
                status: 200, headers: ["Content-Type": "text/event-stream"],
                chunks: stride(from: 0, to: bytes.count, by: 7).map {
                    Array(bytes[$0..<min($0 + 7, bytes.count)])
                })
        }
        let client = LMStudioClient(server: "http://localhost:1234", token: nil, transport: transport)
        var events: [ChatEvent] = []
        for try await event in try await client.streamChat(ChatRequest(model: "m", input: .text("hi"))) {
            events.append(event)
        }
        #expect(events.count == 12)
        #expect(events.first == .chatStart(modelInstanceId: "qwen/qwen3-4b"))
        #expect(events.contains(.messageDelta("héllo 日本 👩‍💻")))
        guard case .chatEnd? = events.last else {
            Issue.record("the stream should end with chat.end")
            return
        }
        #expect(
            try sentJSON(transport.request).flatMap { if case .object(let o) = $0 { o["stream"] } else { nil } }
                == .bool(true))
        #expect(transport.request?.headers["Accept"] == "text/event-stream")
    }

    @Test func connectionLostMidReplyThrowsItsDetailAfterTheEventsBeforeIt() async throws {
        let transport = FakeTransport { _ in
            HTTPResponse(
                status: 200, headers: ["Content-Type": "text/event-stream"],
                body: AsyncThrowingStream { continuation in
                    continuation.yield(
                        Array(
                            "data: {\"type\":\"message.delta\",\"content\":\"par\"}\n\ndata: {\"type\":\"message.delta\""
                                .utf8))
                    continuation.finish(
                        throwing: HTTPError.transfer(
                            url: "http://localhost:1234/api/v1/chat", reason: "the connection was lost"))
                })
        }
        var events: [ChatEvent] = []
        let client = LMStudioClient(server: "http://localhost:1234", token: nil, transport: transport)
        await #expect(throws: LMStudioError.replyConnectionLost(detail: "the connection was lost")) {
            for try await event in try await client.streamChat(ChatRequest(model: "m", input: .text("hi"))) {
                events.append(event)
            }
        }
        #expect(events == [.messageDelta("par")])
        #expect(
            LMStudioError.replyConnectionLost(detail: "reset by peer").description == "connection lost (reset by peer)")
    }

    @Test func streamEndingWithoutChatEndFinishesQuietly() async throws {
        let transport = FakeTransport { _ in
            HTTPResponse(
                status: 200, headers: ["Content-Type": "text/event-stream"],
                chunks: [Array("data: {\"type\":\"message.delta\",\"content\":\"par\"}\n\n".utf8)])
        }
        var events: [ChatEvent] = []
        let client = LMStudioClient(server: "http://localhost:1234", token: nil, transport: transport)
        for try await event in try await client.streamChat(ChatRequest(model: "m", input: .text("hi"))) {
            events.append(event)
        }
        #expect(events == [.messageDelta("par")])
    }

    @Test func oversizeEventEndsTheStreamWithAStreamError() async throws {
        let transport = FakeTransport { _ in
            HTTPResponse(
                status: 200, headers: ["Content-Type": "text/event-stream"],
                chunks: [Array("data: ".utf8) + Array(repeating: 0x61, count: 17 << 20)])
        }
        let stream = try await LMStudioClient(server: "http://localhost:1234", token: nil, transport: transport)
            .streamChat(ChatRequest(model: "m", input: .text("hi")))
        await #expect(throws: LMStudioError.stream(SSEError.eventTooLarge(limit: 16 << 20).description)) {
            for try await _ in stream {}
        }
    }

    /// A client whose chat stream sends `message.start` and then stays open, and a signal raised when its body is terminated.
    func endlessStream() -> (LMStudioClient, AsyncStream<Void>) {
        let (terminated, terminatedContinuation) = AsyncStream<Void>.makeStream()
        let transport = FakeTransport { _ in
            HTTPResponse(
                status: 200, headers: ["Content-Type": "text/event-stream"],
                body: AsyncThrowingStream { continuation in
                    continuation.onTermination = { _ in terminatedContinuation.yield() }
                    // A part's start is handed on with its first text (`ThinkTagSplitter` looks at how the answer opens).
                    continuation.yield(
                        Array(
                            "data: {\"type\":\"message.start\"}\n\ndata: {\"type\":\"message.delta\",\"content\":\"x\"}\n\n"
                                .utf8))
                })
        }
        return (LMStudioClient(server: "http://localhost:1234", token: nil, transport: transport), terminated)
    }

    @Test(.timeLimit(.minutes(1))) func cancellingTheConsumerCancelsTheTransfer() async throws {
        let (client, terminated) = endlessStream()
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let consumer = Task {
            for try await event in try await client.streamChat(ChatRequest(model: "m", input: .text("hi")))
            where event == .messageStart {
                startedContinuation.yield()
            }
        }
        var startSignals = started.makeAsyncIterator()
        _ = await startSignals.next()
        consumer.cancel()
        var signals = terminated.makeAsyncIterator()
        #expect(await signals.next() != nil)
    }

    @Test(.timeLimit(.minutes(1))) func droppingTheStreamCancelsTheTransfer() async throws {
        let (client, terminated) = endlessStream()
        for try await event in try await client.streamChat(ChatRequest(model: "m", input: .text("hi")))
        where event == .messageStart {
            break
        }
        var signals = terminated.makeAsyncIterator()
        #expect(await signals.next() != nil)
    }

    @Test func refusalBeforeStreamingThrows() async throws {
        let transport = FakeTransport { _ in
            reply(
                #"{"error":{"type":"invalid_request","message":"Unrecognized key(s) in object: 'stop'"}}"#, status: 400)
        }
        await #expect(
            throws: LMStudioError.invalidRequest(
                message: "Unrecognized key(s) in object: 'stop'", param: nil, code: nil)
        ) {
            _ = try await LMStudioClient(server: "http://localhost:1234", token: nil, transport: transport)
                .streamChat(ChatRequest(model: "m", input: .text("hi")))
        }
    }

    @Test func preV1ServerIsReportedForStreamingAndPlainCalls() async throws {
        let transport = FakeTransport { request in
            reply(#"{"error":"Unexpected endpoint or method. (\#(request.method) /api/v1/chat)"}"#)
        }
        let client = LMStudioClient(server: "http://localhost:1234", token: nil, transport: transport)
        await #expect(throws: LMStudioError.serverTooOld) {
            _ = try await client.streamChat(ChatRequest(model: "m", input: .text("hi")))
        }
        await #expect(throws: LMStudioError.serverTooOld) { _ = try await client.models() }
    }

    @Test func unauthorisedSaysWhetherATokenWasSent() async throws {
        let transport = FakeTransport { _ in
            reply(#"{"error":{"code":"invalid_api_key","message":"token required"}}"#, status: 401)
        }
        await #expect(throws: LMStudioError.tokenMissing) {
            _ = try await LMStudioClient(server: "http://localhost:1234", token: nil, transport: transport).models()
        }
        await #expect(throws: LMStudioError.tokenRejected) {
            _ = try await LMStudioClient(server: "http://localhost:1234", token: goodToken, transport: transport)
                .models()
        }
    }

    @Test(arguments: [
        (
            HTTPError.unreachable(url: "u", reason: "connection refused"),
            LMStudioError.unreachable(server: "http://localhost:1234", reason: "connection refused")
        ),
        (.timedOut(url: "u", phase: .connect), .timedOut(server: "http://localhost:1234", phase: .connect)),
        (.cancelled, .cancelled)
    ])
    func transportFailuresAreMapped(failure: HTTPError, expected: LMStudioError) async {
        let client = LMStudioClient(
            server: "http://localhost:1234", token: nil, transport: FakeTransport { _ in throw failure })
        await #expect(throws: expected) { _ = try await client.models() }
    }

    @Test func greetingTellsLMStudioFromOtherServers() async throws {
        let lmstudio = FakeTransport { _ in reply(#"{"lmstudio":true}"#) }
        #expect(
            try await LMStudioClient(server: "http://localhost:1234", token: nil, transport: lmstudio).greeting()
                .lmstudio)
        #expect(lmstudio.request?.url == "http://localhost:1234/lmstudio-greeting")
        let other = FakeTransport { _ in reply("<html>Not Found</html>", status: 404, contentType: "text/html") }
        #expect(
            try await !LMStudioClient(server: "http://localhost:1234", token: nil, transport: other).greeting().lmstudio
        )
    }

    @Test func undecodableReplyIsAnInvalidResponse() async {
        let client = LMStudioClient(
            server: "http://localhost:1234", token: nil,
            transport: FakeTransport { _ in reply(#"{"models":[{"type":"llm"}]}"#) })
        await #expect(throws: LMStudioError.invalidResponse("ModelList: missing field .models[0].key")) {
            _ = try await client.models()
        }
    }
}
