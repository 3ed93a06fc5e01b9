import Foundation

/// A conversation with its configuration, continuation and unsent draft.
public struct Conversation: Equatable, Hashable, Sendable, Codable {
    /// Random lowercase hex; users may refer to it by a unique prefix.
    public var id: String
    public var title: String
    /// Nil when the conversation is at the top level.
    public var folderId: Int64?
    public var pinned: Bool
    /// Order among pinned conversations (ascending); nil when not pinned.
    public var pinOrder: Int?
    public var createdAt: Date
    /// The last activity: a message appended or a reply updated.
    public var updatedAt: Date
    public var modelKey: String?
    public var systemPrompt: String?
    public var settings: ConversationSettings
    /// The server that holds the context `lastResponseId` refers to.
    public var serverURL: String?
    /// The `previous_response_id` for the next request.
    public var lastResponseId: String?
    /// Unsent input, restored when the user returns; empty when there is none.
    public var draft: String

    public init(
        id: String, title: String, folderId: Int64? = nil, pinned: Bool = false, pinOrder: Int? = nil,
        createdAt: Date, updatedAt: Date, modelKey: String? = nil, systemPrompt: String? = nil,
        settings: ConversationSettings = ConversationSettings(), serverURL: String? = nil,
        lastResponseId: String? = nil, draft: String = ""
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
    }
}

/// Per-conversation sampling and model options; nil means "the server's default". Stored as JSON.
public struct ConversationSettings: Equatable, Hashable, Sendable, Codable {
    public var temperature: Double?
    public var topP: Double?
    public var topK: Int?
    public var minP: Double?
    public var repeatPenalty: Double?
    public var maxOutputTokens: Int?
    /// The reasoning effort, as the server names it (e.g. "low", "high").
    public var reasoning: String?
    public var contextLength: Int?
    /// Integration (plugin / MCP) identifiers enabled for the conversation.
    public var integrations: [String]?

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
