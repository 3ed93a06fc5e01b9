/// The body of `POST /api/v1/chat`: one new user turn and its settings.
///
/// Only set fields are sent: the server rejects unknown ones and `nil` ones are omitted.
public struct ChatRequest: Encodable, Sendable, Equatable {
    /// A model key or a loaded instance id.
    public var model: String
    /// The new user turn.
    public var input: ChatInput
    /// Send on the first turn only: servers have failed a follow-up carrying it beside `previousResponseId`.
    public var systemPrompt: String?
    /// Tool sources for this turn.
    public var integrations: [Integration]?
    /// Set by ``LMStudioClient`` according to the call used.
    public var stream: Bool?
    /// Sampling temperature.
    public var temperature: Double?
    /// Nucleus sampling cut-off.
    public var topP: Double?
    /// Top-k sampling cut-off.
    public var topK: Int?
    /// Minimum relative token probability.
    public var minP: Double?
    /// Penalty for repeated tokens.
    public var repeatPenalty: Double?
    /// Cap on generated tokens, reasoning included.
    public var maxOutputTokens: Int?
    /// One of the model's `capabilities.reasoning.allowedOptions`.
    public var reasoning: String?
    /// Context length for a just-in-time load.
    public var contextLength: Int?
    /// Whether the server keeps the turn (and answers with a `responseId`); its default is true.
    public var store: Bool?
    /// Continues the server-side conversation of that response.
    public var previousResponseId: String?

    /// Creates a chat request.
    public init(
        model: String, input: ChatInput, systemPrompt: String? = nil, integrations: [Integration]? = nil,
        stream: Bool? = nil, temperature: Double? = nil, topP: Double? = nil, topK: Int? = nil, minP: Double? = nil,
        repeatPenalty: Double? = nil, maxOutputTokens: Int? = nil, reasoning: String? = nil,
        contextLength: Int? = nil, store: Bool? = nil, previousResponseId: String? = nil
    ) {
        self.model = model
        self.input = input
        self.systemPrompt = systemPrompt
        self.integrations = integrations
        self.stream = stream
        self.temperature = temperature
        self.topP = topP
        self.topK = topK
        self.minP = minP
        self.repeatPenalty = repeatPenalty
        self.maxOutputTokens = maxOutputTokens
        self.reasoning = reasoning
        self.contextLength = contextLength
        self.store = store
        self.previousResponseId = previousResponseId
    }

    enum CodingKeys: String, CodingKey {
        case model, input, integrations, stream, temperature, reasoning, store
        case systemPrompt = "system_prompt"
        case topP = "top_p"
        case topK = "top_k"
        case minP = "min_p"
        case repeatPenalty = "repeat_penalty"
        case maxOutputTokens = "max_output_tokens"
        case contextLength = "context_length"
        case previousResponseId = "previous_response_id"
    }
}

/// What the user sends in one turn.
public enum ChatInput: Encodable, Sendable, Equatable {
    /// Plain text, sent as a JSON string.
    case text(String)
    /// Text and images. Without any image it is sent as one plain string (text
    /// items joined by blank lines), since servers have rejected item arrays.
    case items([InputItem])

    /// Whether the input goes out as items with a text item (the ones whose spelling servers disagree on).
    public var hasTextItems: Bool {
        guard case .items(let items) = self else { return false }
        let texts = items.filter { if case .text = $0 { true } else { false } }.count
        return texts > 0 && texts < items.count
    }

    /// The text alone when there are no images, else the text followed by the images.
    public init(text: String, imageDataURLs: [String]) {
        self = imageDataURLs.isEmpty ? .text(text) : .items([.text(text)] + imageDataURLs.map { .image(dataURL: $0) })
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text):
            try container.encode(text)
        case .items(let items):
            let texts = items.compactMap { item -> String? in
                if case .text(let text) = item { text } else { nil }
            }
            if texts.count == items.count {
                try container.encode(texts.joined(separator: "\n\n"))
            } else {
                try container.encode(items)
            }
        }
    }
}

/// One part of a turn that carries images.
public enum InputItem: Encodable, Sendable, Equatable {
    /// Sent as `{"type":"text","content":…}`, or with the type spelt as the encoder's ``textTypeKey`` says.
    case text(String)
    /// A `data:image/…;base64,…` URL, sent as `{"type":"image","data_url":…}`.
    case image(dataURL: String)

    enum CodingKeys: String, CodingKey {
        case type, content
        case dataURL = "data_url"
    }

    /// The `type` a text item is sent with unless the encoder says otherwise: `text`, as in the example of `chat.md`
    /// and as servers have been seen to require (its reference says `message`).
    public static let defaultTextType = "text"

    /// The encoder `userInfo` key holding the text item `type` to send (`text` or `message`).
    public static let textTypeKey = CodingUserInfoKey(rawValue: "llmster.textItemType")!

    /// The spelling to try when the server refused `spelling`.
    static func otherTextType(than spelling: String) -> String {
        spelling == "text" ? "message" : "text"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .text(let text):
            try c.encode(encoder.userInfo[Self.textTypeKey] as? String ?? Self.defaultTextType, forKey: .type)
            try c.encode(text, forKey: .content)
        case .image(let dataURL):
            try c.encode("image", forKey: .type)
            try c.encode(dataURL, forKey: .dataURL)
        }
    }
}

/// A tool source the model may use during the turn.
public enum Integration: Encodable, Sendable, Equatable {
    /// An installed plugin such as `mcp/playwright`; without a tool list it is sent as the bare id.
    case plugin(id: String, allowedTools: [String]?)
    /// An MCP server given for this request only.
    case ephemeralMCP(serverLabel: String, serverURL: String, allowedTools: [String]?, headers: [String: String]?)

    enum CodingKeys: String, CodingKey {
        case type, id, headers
        case allowedTools = "allowed_tools"
        case serverLabel = "server_label"
        case serverURL = "server_url"
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .plugin(let id, nil):
            var container = encoder.singleValueContainer()
            try container.encode(id)
        case .plugin(let id, let allowedTools):
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode("plugin", forKey: .type)
            try c.encode(id, forKey: .id)
            try c.encodeIfPresent(allowedTools, forKey: .allowedTools)
        case .ephemeralMCP(let serverLabel, let serverURL, let allowedTools, let headers):
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode("ephemeral_mcp", forKey: .type)
            try c.encode(serverLabel, forKey: .serverLabel)
            try c.encode(serverURL, forKey: .serverURL)
            try c.encodeIfPresent(allowedTools, forKey: .allowedTools)
            try c.encodeIfPresent(headers, forKey: .headers)
        }
    }
}
