import Foundation

/// A conversation with its configuration, continuation and unsent draft.
public struct Conversation: Equatable, Hashable, Sendable, Codable {
    /// Random lowercase hex; users may refer to it by a unique prefix.
    public var id: String
    /// The title shown in lists and matched by search and `resolveConversation`.
    public var title: String
    /// Nil when the conversation is at the top level.
    public var folderId: Int64?
    /// Whether the conversation is listed before unpinned ones.
    public var pinned: Bool
    /// Order among pinned conversations (ascending); nil when not pinned.
    public var pinOrder: Int?
    /// When the conversation was created.
    public var createdAt: Date
    /// The last activity: a message appended or a reply updated.
    public var updatedAt: Date
    /// The model the conversation uses; nil for the configured default.
    public var modelKey: String?
    /// Instructions sent with every request; nil for none.
    public var systemPrompt: String?
    /// Sampling and model options.
    public var settings: ConversationSettings
    /// The server that holds the context `lastResponseId` refers to.
    public var serverURL: String?
    /// The `previous_response_id` for the next request.
    public var lastResponseId: String?
    /// Unsent input, restored when the user returns; empty when there is none.
    public var draft: String
    /// Whether the saved system prompt has not reached the model yet: it changed after the server context began,
    /// so it takes effect only with a fresh server context (see `SystemPromptEffect`).
    public var needsFreshContext: Bool

    /// Creates a value from its fields.
    public init(
        id: String, title: String, folderId: Int64? = nil, pinned: Bool = false, pinOrder: Int? = nil,
        createdAt: Date, updatedAt: Date, modelKey: String? = nil, systemPrompt: String? = nil,
        settings: ConversationSettings = ConversationSettings(), serverURL: String? = nil,
        lastResponseId: String? = nil, draft: String = "", needsFreshContext: Bool = false
    ) {
        self.id = id
        self.title = title
        self.folderId = folderId
        self.pinned = pinned
        self.pinOrder = pinOrder
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.modelKey = modelKey
        self.systemPrompt = systemPrompt
        self.settings = settings
        self.serverURL = serverURL
        self.lastResponseId = lastResponseId
        self.draft = draft
        self.needsFreshContext = needsFreshContext
    }
}

/// Per-conversation sampling and model options; nil means "the server's default". Stored as JSON.
public struct ConversationSettings: Equatable, Hashable, Sendable, Codable {
    /// Sampling temperature.
    public var temperature: Double?
    /// Nucleus sampling threshold.
    public var topP: Double?
    /// Top-k sampling cutoff.
    public var topK: Int?
    /// Minimum-probability sampling threshold.
    public var minP: Double?
    /// Penalty for repeated tokens.
    public var repeatPenalty: Double?
    /// The longest reply, in tokens.
    public var maxOutputTokens: Int?
    /// The reasoning effort, as the server names it (e.g. "low", "high").
    public var reasoning: String?
    /// The context window to load the model with, in tokens.
    public var contextLength: Int?
    /// Integration (plugin / MCP) identifiers enabled for the conversation.
    public var integrations: [String]?

    /// Creates a value from its fields.
    public init(
        temperature: Double? = nil, topP: Double? = nil, topK: Int? = nil, minP: Double? = nil,
        repeatPenalty: Double? = nil, maxOutputTokens: Int? = nil, reasoning: String? = nil,
        contextLength: Int? = nil, integrations: [String]? = nil
    ) {
        self.temperature = temperature
        self.topP = topP
        self.topK = topK
        self.minP = minP
        self.repeatPenalty = repeatPenalty
        self.maxOutputTokens = maxOutputTokens
        self.reasoning = reasoning
        self.contextLength = contextLength
        self.integrations = integrations
    }
}
