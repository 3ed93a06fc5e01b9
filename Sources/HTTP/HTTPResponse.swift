/// A response whose status line and headers have arrived and whose body streams.
public struct HTTPResponse: Sendable {
    /// The status code, e.g. 200.
    public var status: Int
    /// Header fields by lowercased name; repeated fields are joined with ", ".
    public var headers: [String: String]
    /// The body in chunks as they arrive; it ends when the transfer does and
    /// throws ``HTTPError`` when the transfer fails. ``CurlTransport`` reads
    /// ahead only a bounded amount, so memory does not grow with a body that is
    /// consumed as it streams. Dropping or cancelling the iteration aborts the transfer.
    public var body: AsyncThrowingStream<[UInt8], any Error>

    /// Creates a response; header names are lowercased.
    public init(status: Int, headers: [String: String], body: AsyncThrowingStream<[UInt8], any Error>) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { "\($0), \($1)" })
        self.body = body
    }

    /// Creates a response whose body is the given chunks, for fakes and tests.
    public init(status: Int, headers: [String: String] = [:], chunks: [[UInt8]]) {
        self.init(
            status: status, headers: headers,
            body: AsyncThrowingStream { continuation in
                for chunk in chunks { continuation.yield(chunk) }
                continuation.finish()
            })
    }

    /// Reads the whole body, throwing ``HTTPError/bodyTooLarge(limit:)`` once it exceeds `limit` bytes.
    public func collect(limit: Int) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await chunk in body {
            guard bytes.count + chunk.count <= limit else { throw HTTPError.bodyTooLarge(limit: limit) }
            bytes += chunk
        }
        return bytes
    }
}
