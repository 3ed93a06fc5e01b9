import Testing

@testable import HTTP

struct HTTPResponseTests {
    @Test func headerNamesAreLowercased() {
        let response = HTTPResponse(status: 200, headers: ["Content-Type": "text/event-stream"], chunks: [])
        #expect(response.headers == ["content-type": "text/event-stream"])
    }

    @Test func collectJoinsChunks() async throws {
        let response = HTTPResponse(status: 200, chunks: [[1, 2], [], [3]])
        #expect(try await response.collect(limit: 3) == [1, 2, 3])
    }

    @Test func collectRefusesBodiesOverTheLimit() async {
        let response = HTTPResponse(status: 200, chunks: [[1, 2], [3]])
        await #expect(throws: HTTPError.bodyTooLarge(limit: 2)) { try await response.collect(limit: 2) }
    }
}

struct CurlTransportTests {
    @Test func closedLoopbackPortIsUnreachableWithConnectionRefused() async {
        await #expect(throws: HTTPError.unreachable(url: "http://127.0.0.1:9/", reason: "connection refused")) {
            try await CurlTransport().send(HTTPRequest(url: "http://127.0.0.1:9/"))
        }
    }

    @Test(arguments: ["ftp://127.0.0.1/file", "not a url"])
    func nonHTTPURLsAreRefused(url: String) async {
        await #expect(throws: HTTPError.invalidURL(url)) {
            try await CurlTransport().send(HTTPRequest(url: url))
        }
    }

    @Test func errorsReadAsWords() {
        #expect(
            HTTPError.unreachable(url: "http://localhost:1234", reason: "connection refused").description
                == "http://localhost:1234 is not reachable (connection refused)")
        #expect(
            HTTPError.timedOut(url: "http://h", phase: .idle).description == "http://h stopped sending data (timed out)"
        )
    }
}
