import Foundation

/// One HTTP request the simulator received, as it arrived.
public struct RecordedRequest: Sendable {
    /// The request method, e.g. `POST`.
    public let method: String
    /// The request target without the query string.
    public let path: String
    /// Header values by lowercased name (the last one wins when repeated).
    public let headers: [String: String]
    /// The raw body, decoded as UTF-8 (lossy).
    public let body: String

    /// The top-level keys of a JSON object body, sorted; empty when the body is not an object.
    public var bodyKeys: [String] {
        (JSON.object(body) ?? [:]).keys.sorted()
    }

    /// A top-level field of a JSON object body: strings as they are, anything else as compact JSON.
    public func field(_ name: String) -> String? {
        guard let value = JSON.object(body)?[name] else { return nil }
        if let text = value as? String { return text }
        return JSON.fragment(value)
    }
}
