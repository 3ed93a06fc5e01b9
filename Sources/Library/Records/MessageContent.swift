/// What a save writes of a message, apart from where it sits: its text and reasoning, its status, why it is not
/// complete, and what the server reported of it. Saving a reply again, a nil `error`, `statsJSON`,
/// `modelInstanceId` or `responseId` keeps what is stored.
public struct MessageContent: Equatable, Sendable {
    /// The answer (or the user's message), whole, or the part a save appends.
    public var text: String
    /// The reasoning, whole, or the part a save appends.
    public var reasoning: String
    public var status: MessageStatus
    /// Why the message is not complete.
    public var error: String?
    /// The server's stats as JSON text.
    public var statsJSON: String?
    /// The model instance that wrote the reply.
    public var modelInstanceId: String?
    /// The server's id for the reply, from which the conversation continues.
    public var responseId: String?

    /// Creates a value from its fields.
    public init(
        text: String, reasoning: String = "", status: MessageStatus = .complete, error: String? = nil,
        statsJSON: String? = nil, modelInstanceId: String? = nil, responseId: String? = nil
    ) {
        self.text = text
        self.reasoning = reasoning
        self.status = status
        self.error = error
        self.statsJSON = statsJSON
        self.modelInstanceId = modelInstanceId
        self.responseId = responseId
    }
}
