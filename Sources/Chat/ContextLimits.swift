/// The largest context item and the largest sum of items one message may carry, in UTF-8 bytes (config keys
/// `context_item_limit` and `context_message_limit`).
public struct ContextLimits: Sendable, Equatable {
    public var item: Int
    public var message: Int

    /// The defaults: 512 KiB an item (about 130k tokens), 2 MiB a message.
    public static let standard = ContextLimits(item: 512 << 10, message: 2 << 20)

    /// Creates limits.
    public init(item: Int, message: Int) {
        self.item = item
        self.message = message
    }

    /// A limit as the config spells it: `512K`, `2M`, or bytes when not a whole number of KiB.
    public static func spelled(_ bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20)M" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10)K" }
        return "\(bytes) bytes"
    }

    /// Throws `ContextError.messageTooLarge` when `items` together exceed the message limit.
    public func check(_ items: [ContextItem]) throws(ContextError) {
        let total = items.reduce(0) { $0 + $1.byteCount }
        guard total <= message else { throw .messageTooLarge(items: items.map(\.chip), size: total, limit: message) }
    }
}
