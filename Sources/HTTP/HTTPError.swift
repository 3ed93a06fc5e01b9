import Foundation

/// Which wait ran out.
public enum TimeoutPhase: String, Sendable, Equatable {
    /// Establishing the connection.
    case connect
    /// Waiting for the next byte once connected.
    case idle
}

/// Why a transfer failed, in words a user can act on.
public enum HTTPError: Error, Sendable, Equatable {
    /// No connection could be made: the reason reads like "connection refused" or "could not resolve host".
    case unreachable(url: String, reason: String)
    /// A limit from ``HTTPTimeouts`` ran out.
    case timedOut(url: String, phase: TimeoutPhase)
    /// The TLS handshake or certificate check failed.
    case tls(url: String, reason: String)
    /// The URL cannot be requested (malformed, or not http/https).
    case invalidURL(String)
    /// The connection broke or the server spoke something other than HTTP.
    case transfer(url: String, reason: String)
    /// ``HTTPResponse/collect(limit:)`` read more than `limit` bytes.
    case bodyTooLarge(limit: Int)
    /// The caller cancelled the transfer.
    case cancelled
}

extension HTTPError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .unreachable(let url, let reason): "\(url) is not reachable (\(reason))"
        case .timedOut(let url, .connect): "connecting to \(url) timed out"
        case .timedOut(let url, .idle): "\(url) stopped sending data (timed out)"
        case .tls(let url, let reason): "secure connection to \(url) failed: \(reason)"
        case .invalidURL(let url): "cannot request \(url): not a valid http or https URL"
        case .transfer(let url, let reason): "transfer from \(url) failed: \(reason)"
        case .bodyTooLarge(let limit): "the response is larger than \(limit) bytes"
        case .cancelled: "the request was cancelled"
        }
    }

    public var errorDescription: String? { description }
}
