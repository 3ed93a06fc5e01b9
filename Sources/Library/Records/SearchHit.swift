/// A search result: a conversation whose title matched, or one of its messages.
public struct SearchHit: Equatable, Hashable, Sendable, Codable {
    /// The conversation to open.
    public var conversationId: String
    /// Nil when the conversation's title matched.
    public var messageId: String?
    /// The conversation's title.
    public var title: String
    /// The matching passage with matched terms between the highlight markers passed to `search`.
    public var snippet: String

    /// Creates a value from its fields.
    public init(conversationId: String, messageId: String?, title: String, snippet: String) {
        self.conversationId = conversationId
        self.messageId = messageId
        self.title = title
        self.snippet = snippet
    }
}
