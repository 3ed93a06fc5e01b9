/// Something that performs HTTP requests: ``CurlTransport``, or a fake in tests.
public protocol Transport: Sendable {
    /// Sends `request` and returns once the status line and headers have arrived.
    ///
    /// Throws ``HTTPError`` when no response arrives.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
