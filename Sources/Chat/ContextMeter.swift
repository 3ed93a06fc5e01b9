import Foundation
import SystemSupport

/// Estimates how full a conversation's context is, from the loaded instance's context length, the
/// latest reply's token statistics and the typed input.
public struct ContextMeter: Sendable, Equatable {
    /// Tokens the server reported for the conversation so far (input plus output of the latest reply).
    public var usedTokens: Int
    /// The running instance's context length (may be smaller than the model's maximum).
    public var contextLength: Int?

    /// Creates a meter.
    public init(usedTokens: Int, contextLength: Int?) {
        self.usedTokens = usedTokens
        self.contextLength = contextLength
    }

    /// A rough token count for text not yet sent: about four characters a token.
    public static func estimateTokens(_ text: String) -> Int { (text.utf8.count + 3) / 4 }

    /// Tokens used once `draft` is sent.
    public func projected(draft: String) -> Int { usedTokens.saturatingAdd(Self.estimateTokens(draft)) }

    /// Whether sending `draft` would fill the context past `percent` of it.
    public func wouldFill(draft: String, percent: Int) -> Bool {
        guard let contextLength else { return false }
        return projected(draft: draft).saturatingMultiply(100) > contextLength.saturatingMultiply(percent)
    }

    /// The share of the context used once `draft` is sent (1 is full; above 1 overflows); nil when the context length is unknown.
    public func ratio(draft: String = "") -> Double? {
        guard let contextLength, contextLength > 0 else { return nil }
        return Double(projected(draft: draft)) / Double(contextLength)
    }

    /// The figure every face shows, e.g. `ctx 3.1k/8k 39%`; `ctx 10/?` when the context length is unknown.
    public func label(draft: String = "") -> String {
        let used = projected(draft: draft)
        guard let ratio = ratio(draft: draft), let contextLength else { return "ctx \(Self.compact(used))/?" }
        return "ctx \(Self.compact(used))/\(Self.compact(contextLength)) \(Int(saturating: (ratio * 100).rounded()))%"
    }

    /// 950 → `950`, 3100 → `3.1k`, 8192 → `8k`, 131072 → `128k`.
    public static func compact(_ tokens: Int) -> String {
        if tokens < 1000 { return String(tokens) }
        if tokens % 1024 == 0 { return "\(tokens / 1024)k" }
        let thousands = Double(tokens) / 1000
        return thousands >= 100
            ? "\(Int(saturating: thousands.rounded()))k"
            : String(format: "%.1fk", thousands).replacingOccurrences(of: ".0k", with: "k")
    }
}
