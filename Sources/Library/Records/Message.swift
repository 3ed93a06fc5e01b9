import Foundation

/// One turn of a conversation.
public struct Message: Equatable, Hashable, Sendable, Codable {
    /// Random lowercase hex.
    public var id: String
    /// The conversation the message belongs to.
    public var conversationId: String
    /// Who wrote it.
    public var role: MessageRole
    /// The visible text (the answer, for a reply).
    public var text: String
    /// The model's reasoning before the answer; empty when there was none.
    public var reasoning: String
    /// Whether the message is complete, still streaming, cut short or failed.
    public var status: MessageStatus
    /// What went wrong, when `status` is `.error` (or why a reply stopped early).
    public var error: String?
    /// The server's stats object as JSON text, as the engine received it.
    public var statsJSON: String?
    /// The loaded model instance that wrote the reply.
    public var modelInstanceId: String?
    /// The server's response id for this reply.
    public var responseId: String?
    /// When the message was appended.
    public var createdAt: Date
    /// When the message last changed.
    public var updatedAt: Date
    /// 0-based order within the conversation, over every branch.
    public var position: Int
    /// The message before this one on its branch; nil for a conversation's first turn.
    public var parentId: String?
    /// Whether the message is on the conversation's current branch (false for a replaced alternative).
    public var onBranch: Bool
    /// For a reply: the `previous_response_id` of the context it was asked in; nil for a fresh context.
    public var parentResponseId: String?
    /// For a reply: the server that wrote it, which holds `responseId` and `parentResponseId`.
    public var serverURL: String?
    /// For a reply: the server's final text (its `chat.end`) differed from what streamed and replaced it.
    public var isRewritten: Bool
    /// For a rewritten reply: the alternative that keeps the text, reasoning and tool calls as they streamed.
    public var streamedVersionId: String?

    /// Creates a value from its fields.
    public init(
        id: String, conversationId: String, role: MessageRole, text: String, reasoning: String = "",
        status: MessageStatus, error: String? = nil, statsJSON: String? = nil, modelInstanceId: String? = nil,
        responseId: String? = nil, createdAt: Date, updatedAt: Date, position: Int, parentId: String? = nil,
        onBranch: Bool = true, parentResponseId: String? = nil, serverURL: String? = nil, isRewritten: Bool = false,
        streamedVersionId: String? = nil
    ) {
        self.id = id
        self.conversationId = conversationId
        self.role = role
        self.text = text
        self.reasoning = reasoning
        self.status = status
        self.error = error
        self.statsJSON = statsJSON
        self.modelInstanceId = modelInstanceId
        self.responseId = responseId
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.position = position
        self.parentId = parentId
        self.onBranch = onBranch
        self.parentResponseId = parentResponseId
        self.serverURL = serverURL
        self.isRewritten = isRewritten
        self.streamedVersionId = streamedVersionId
    }
}

/// Who wrote a message.
public enum MessageRole: String, Sendable, Codable, CaseIterable {
    case user, assistant, system
}

/// Where a message stands.
public enum MessageStatus: String, Sendable, Codable, CaseIterable {
    case complete
    /// A reply being received; a crashed run leaves it so until `recoverInterruptedReplies()`.
    case streaming
    /// A reply that stopped early (cancelled or interrupted); its text is kept.
    case incomplete
    case error
}
