/// One HTTP request: what to send and how long to wait.
public struct HTTPRequest: Sendable {
    /// The method, e.g. `GET` or `POST`.
    public var method: String
    /// The absolute `http://` or `https://` URL.
    public var url: String
    /// Header fields to send besides the ones the transport adds.
    public var headers: [String: String]
    /// The request body; `nil` sends none.
    public var body: [UInt8]?
    /// Connect and idle limits for this request.
    public var timeouts: HTTPTimeouts

    /// Creates a request; a `GET` without body by default.
    public init(
        method: String = "GET",
        url: String,
        headers: [String: String] = [:],
        body: [UInt8]? = nil,
        timeouts: HTTPTimeouts = HTTPTimeouts()
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeouts = timeouts
    }
}

/// How long a transfer may wait, in seconds.
public struct HTTPTimeouts: Sendable, Equatable {
    /// Longest wait for the TCP (and TLS) connection to be established.
    public var connect: Double
    /// Longest time without receiving a byte, at any point after connecting.
    public var idle: Double

    /// Creates limits; defaults suit a local server that streams.
    public init(connect: Double = 5, idle: Double = 120) {
        self.connect = connect
        self.idle = idle
    }
}
