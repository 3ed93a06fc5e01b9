/// The server's figures for one reply, read from the stats JSON stored with it; nil where the server sent none.
public struct ReplyStatistics: Equatable, Sendable, Codable {
    public var messageId: String
    /// Tokens of context the reply was computed from.
    public var inputTokens: Int?
    /// Tokens generated, reasoning included.
    public var totalOutputTokens: Int?
    public var reasoningOutputTokens: Int?
    public var tokensPerSecond: Double?
    public var timeToFirstTokenSeconds: Double?

    public init(
        messageId: String, inputTokens: Int? = nil, totalOutputTokens: Int? = nil, reasoningOutputTokens: Int? = nil,
        tokensPerSecond: Double? = nil, timeToFirstTokenSeconds: Double? = nil
    ) {
        self.messageId = messageId
        self.inputTokens = inputTokens
        self.totalOutputTokens = totalOutputTokens
        self.reasoningOutputTokens = reasoningOutputTokens
        self.tokensPerSecond = tokensPerSecond
        self.timeToFirstTokenSeconds = timeToFirstTokenSeconds
    }
}
