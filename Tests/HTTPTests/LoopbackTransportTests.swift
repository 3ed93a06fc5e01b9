import Foundation
import HTTP
import TestSupport
import Testing

/// `CurlTransport` over loopback against the simulator's real HTTP server.
@Suite struct LoopbackTransportTests {
    func chatBody(_ input: String, stream: Bool = true) -> [UInt8] {
        let object: [String: Any] = ["model": "acme/tiny-1b", "input": input, "stream": stream, "store": false]
        return [UInt8](try! JSONSerialization.data(withJSONObject: object))
    }

    @Test func getReturnsStatusHeadersAndBody() async throws {
        let fixture = try SimulatorFixture()
        let response = try await CurlTransport().send(HTTPRequest(url: fixture.url + "/lmstudio-greeting"))
        #expect(response.status == 200)
        #expect(response.headers["content-type"]?.hasPrefix("application/json") == true)
        let body = String(decoding: try await response.collect(limit: 1 << 20), as: UTF8.self)
        #expect(body.contains(#""lmstudio":true"#))
    }

    @Test func postSendsItsBodyAndStreamsChunkedEvents() async throws {
        let fixture = try SimulatorFixture()
        let request = HTTPRequest(
            method: "POST", url: fixture.url + "/api/v1/chat",
            headers: ["Content-Type": "application/json"], body: chatBody("[[sim:split=every]] echo:hello"))
        let response = try await CurlTransport().send(request)
        #expect(response.status == 200)
        #expect(response.headers["content-type"]?.hasPrefix("text/event-stream") == true)
        var chunks = 0
        var text = ""
        for try await chunk in response.body {
            chunks += 1
            text += String(decoding: chunk, as: UTF8.self)
        }
        #expect(chunks > 1, "the body arrives as it is written, not at the end")
        #expect(text.contains("event: chat.end"))
        #expect(fixture.requests(to: "/api/v1/chat").first?.field("input") == "[[sim:split=every]] echo:hello")
    }

    @Test func silentStreamTimesOutAsIdle() async throws {
        let fixture = try SimulatorFixture()
        let request = HTTPRequest(
            method: "POST", url: fixture.url + "/api/v1/chat",
            headers: ["Content-Type": "application/json"], body: chatBody("[[sim:stall=20]] echo:a b c d e f"),
            timeouts: HTTPTimeouts(connect: 5, idle: 1))
        let response = try await CurlTransport().send(request)
        var received = 0
        do {
            for try await chunk in response.body { received += chunk.count }
            Issue.record("a stalled stream ended without an error")
        } catch let error as HTTPError {
            guard case .timedOut(_, .idle) = error else {
                Issue.record("expected an idle timeout, got \(error)")
                return
            }
        }
        #expect(received > 0, "what arrived before the stall was delivered")
    }

    @Test func refusedConnectionReadsAsUnreachable() async throws {
        let fixture = try SimulatorFixture()
        let url = fixture.url
        fixture.simulator.stop()
        do {
            _ = try await CurlTransport().send(HTTPRequest(url: url + "/lmstudio-greeting"))
            Issue.record("a stopped server answered")
        } catch let error as HTTPError {
            guard case .unreachable(_, let reason) = error else {
                Issue.record("got \(error)")
                return
            }
            #expect(reason == "connection refused")
        }
    }
}
