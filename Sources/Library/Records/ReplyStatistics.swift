/// The server's figures for one reply, read from the stats JSON stored with it; nil where the server sent none.
public struct ReplyStatistics: Equatable, Sendable, Codable {
    /// The reply the figures belong to.
    public var messageId: String
    /// Tokens of context the reply was computed from.
    public var inputTokens: Int?
    /// Tokens generated, reasoning included.
    public var totalOutputTokens: Int?
    /// Tokens of reasoning among the output.
    public var reasoningOutputTokens: Int?
    /// Generation speed.
    public var tokensPerSecond: Double?
    /// Seconds until the first token arrived.
    public var timeToFirstTokenSeconds: Double?
    /// Seconds the server spent loading the model for this reply; nil when it was already loaded.
    public var modelLoadTimeSeconds: Double?

    /// Creates a value from its fields.
    public init(
        messageId: String, inputTokens: Int? = nil, totalOutputTokens: Int? = nil, reasoningOutputTokens: Int? = nil,
        tokensPerSecond: Double? = nil, timeToFirstTokenSeconds: Double? = nil, modelLoadTimeSeconds: Double? = nil
    ) {
        self.messageId = messageId
        self.inputTokens = inputTokens
        self.totalOutputTokens = totalOutputTokens
        self.reasoningOutputTokens = reasoningOutputTokens
        self.tokensPerSecond = tokensPerSecond
        self.timeToFirstTokenSeconds = timeToFirstTokenSeconds
        self.modelLoadTimeSeconds = modelLoadTimeSeconds
    }
}
