import Foundation
import TestSupport
import Testing

@testable import HTTP

/// The bounded body buffer of `CurlTransport` over loopback: a slow consumer pauses the transfer, and cancelling ends it.
@Suite struct BackpressureTests {
    /// The buffer events of one transfer, as a stream a test can wait on.
    final class BufferLog: Sendable {
        let events: AsyncStream<BodyBufferEvent>
        private let continuation: AsyncStream<BodyBufferEvent>.Continuation

        init() {
            (events, continuation) = AsyncStream.makeStream()
        }

        func record(_ event: BodyBufferEvent) {
            continuation.yield(event)
            if event == .ended { continuation.finish() }
        }
    }

    func chatRequest(_ url: String, _ input: String) -> HTTPRequest {
        let object: [String: Any] = ["model": "acme/tiny-1b", "input": input, "stream": true, "store": false]
        return HTTPRequest(
            method: "POST", url: url + "/api/v1/chat", headers: ["Content-Type": "application/json"],
            body: [UInt8](try! JSONSerialization.data(withJSONObject: object)))
    }

    @Test(.timeLimit(.minutes(1))) func slowConsumerPausesTheTransferWithinTheBoundAndGetsEveryByteInOrder()
        async throws
    {
        let fixture = try SimulatorFixture()
        let limit = 64 << 10
        let log = BufferLog()
        let transport = CurlTransport(bodyBufferLimit: limit, bufferObserver: { log.record($0) })
        let response = try await transport.send(chatRequest(fixture.url, "[[sim:large=2000000]] big"))
        // The consumer reads nothing until the transfer has paused on a full buffer (or ended).
        var events = log.events.makeAsyncIterator()
        var highWater = 0
        var pausedAt: Int?
        while pausedAt == nil, let event = await events.next() {
            switch event {
            case .buffered(let bytes): highWater = max(highWater, bytes)
            case .paused(let bytes): pausedAt = bytes
            case .ended: break
            }
        }
        #expect(pausedAt != nil, "a 2 MB body cannot fit a 64 KiB buffer: the transfer must pause")
        var body: [UInt8] = []
        for try await chunk in response.body { body += chunk }
        while let event = await events.next() {
            if case .buffered(let bytes) = event { highWater = max(highWater, bytes) }
        }
        #expect(highWater <= limit)
        // In order and complete: the deltas add up to the answer chat.end reports.
        let text = String(decoding: body, as: UTF8.self)
        var answer = ""
        var final: String?
        for line in text.split(separator: "\n") where line.hasPrefix("data: ") {
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any])
            if object["type"] as? String == "message.delta" { answer += object["content"] as? String ?? "" }
            if object["type"] as? String == "chat.end" {
                let output = (object["result"] as? [String: Any])?["output"] as? [[String: Any]]
                final = output?.last?["content"] as? String
            }
        }
        #expect(answer.utf8.count >= 2_000_000)
        #expect(final == answer)
    }

    @Test(.timeLimit(.minutes(1))) func cancellingMidStreamEndsTheTransferAndTheConsumerSeesIt() async throws {
        let fixture = try SimulatorFixture()
        let log = BufferLog()
        let transport = CurlTransport(bodyBufferLimit: 64 << 10, bufferObserver: { log.record($0) })
        let response = try await transport.send(chatRequest(fixture.url, "[[sim:large=8000000]] endless"))
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let consumer = Task {
            var received = 0
            for try await chunk in response.body {
                received += chunk.count
                startedContinuation.yield()
            }
            return received
        }
        var startSignals = started.makeAsyncIterator()
        _ = await startSignals.next()
        consumer.cancel()
        // A cancelled pull either throws `cancelled` or simply ends the sequence; any other error is a failure.
        do { _ = try await consumer.value } catch { #expect(error as? HTTPError == .cancelled, "\(error)") }
        var sawEnd = false
        for await event in log.events where event == .ended { sawEnd = true }
        #expect(sawEnd, "the curl thread ended the transfer and closed its connection")
    }
}
