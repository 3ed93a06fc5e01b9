/// A finished turn: the non-streaming reply of `POST /api/v1/chat`, and the `result` of `chat.end`.
public struct ChatResult: Codable, Sendable, Equatable {
    /// The instance that answered, e.g. `key` or `key:2`.
    public var modelInstanceId: String?
    /// Reasoning, tool calls and messages in the order they happened.
    public var output: [OutputItem]
    /// Token counts and speed.
    public var stats: ChatStats?
    /// Present when the turn was stored; continues the conversation as `previousResponseId`.
    public var responseId: String?

    /// Creates a result.
    public init(
        modelInstanceId: String? = nil, output: [OutputItem] = [], stats: ChatStats? = nil, responseId: String? = nil
    ) {
        self.modelInstanceId = modelInstanceId
        self.output = output
        self.stats = stats
        self.responseId = responseId
    }

    enum CodingKeys: String, CodingKey {
        case output, stats
        case modelInstanceId = "model_instance_id"
        case responseId = "response_id"
    }

    /// Decodes tolerantly: a missing `output` reads as empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        modelInstanceId = try c.decodeIfPresent(String.self, forKey: .modelInstanceId)
        output = try c.decodeIfPresent([OutputItem].self, forKey: .output) ?? []
        stats = try c.decodeIfPresent(ChatStats.self, forKey: .stats)
        responseId = try c.decodeIfPresent(String.self, forKey: .responseId)
    }
}

/// One item of a turn's output.
public enum OutputItem: Codable, Sendable, Equatable {
    /// Answer text.
    case message(OutputText)
    /// Reasoning text.
    case reasoning(OutputText)
    /// A tool the model called.
    case toolCall(ToolCall)
    /// A tool call the server could not run (unknown tool, bad arguments).
    case invalidToolCall(InvalidToolCall)
    /// An item kind this client does not know; kept so the order stays visible.
    case unknown(type: String)

    enum CodingKeys: String, CodingKey { case type, content }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try c.decodeIfPresent(String.self, forKey: .type) ?? ""
        switch type {
        case "message": self = .message(OutputText(try c.decodeIfPresent(String.self, forKey: .content) ?? ""))
        case "reasoning": self = .reasoning(OutputText(try c.decodeIfPresent(String.self, forKey: .content) ?? ""))
        case "tool_call": self = .toolCall(try ToolCall(from: decoder))
        case "invalid_tool_call": self = .invalidToolCall(try InvalidToolCall(from: decoder))
        default: self = .unknown(type: type)
        }
    }

    /// The text to encode; a text confirmed against the streamed reply cannot be encoded without that reply.
    private static func content(_ text: OutputText, at path: [any CodingKey]) throws -> String {
        guard let string = text.string else {
            throw EncodingError.invalidValue(
                text,
                .init(codingPath: path, debugDescription: "the text needs the streamed reply it was confirmed against"))
        }
        return string
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .message(let text):
            try c.encode("message", forKey: .type)
            try c.encode(Self.content(text, at: c.codingPath), forKey: .content)
        case .reasoning(let text):
            try c.encode("reasoning", forKey: .type)
            try c.encode(Self.content(text, at: c.codingPath), forKey: .content)
        case .toolCall(let call):
            try c.encode("tool_call", forKey: .type)
            try call.encode(to: encoder)
        case .invalidToolCall(let call):
            try c.encode("invalid_tool_call", forKey: .type)
            try call.encode(to: encoder)
        case .unknown(let type):
            try c.encode(type, forKey: .type)
        }
    }
}

/// A tool the model called, with what it returned.
public struct ToolCall: Codable, Sendable, Equatable {
    /// The tool's name.
    public var tool: String
    /// Usually an object.
    public var arguments: JSONValue
    /// The tool's answer; a non-string answer is kept as compact JSON text.
    public var output: String?
    /// Where the tool comes from.
    public var providerInfo: ProviderInfo?

    /// Creates a tool call.
    public init(
        tool: String, arguments: JSONValue = .object([:]), output: String? = nil, providerInfo: ProviderInfo? = nil
    ) {
        self.tool = tool
        self.arguments = arguments
        self.output = output
        self.providerInfo = providerInfo
    }

    enum CodingKeys: String, CodingKey {
        case tool, arguments, output
        case providerInfo = "provider_info"
    }

    /// Decodes tolerantly: missing arguments read as an empty object.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        tool = try c.decodeIfPresent(String.self, forKey: .tool) ?? ""
        arguments = try c.decodeIfPresent(JSONValue.self, forKey: .arguments) ?? .object([:])
        output = try c.decodeIfPresent(JSONValue.self, forKey: .output).flatMap(\.textValue)
        providerInfo = try c.decodeIfPresent(ProviderInfo.self, forKey: .providerInfo)
    }
}

/// A tool call that failed before running.
public struct InvalidToolCall: Codable, Sendable, Equatable {
    /// Why it failed, as the server words it.
    public var reason: String
    /// What is known about the failed call.
    public var metadata: ToolCallFailureMetadata?

    /// Creates a failed tool call.
    public init(reason: String, metadata: ToolCallFailureMetadata? = nil) {
        self.reason = reason
        self.metadata = metadata
    }

    enum CodingKeys: String, CodingKey { case reason, metadata }

    /// Decodes tolerantly: a missing reason reads as empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        reason = try c.decodeIfPresent(String.self, forKey: .reason) ?? ""
        metadata = try c.decodeIfPresent(ToolCallFailureMetadata.self, forKey: .metadata)
    }
}

/// What is known about a failed tool call.
public struct ToolCallFailureMetadata: Codable, Sendable, Equatable {
    /// `invalid_name` or `invalid_arguments`.
    public var type: String?
    /// The tool the model asked for.
    public var toolName: String?
    /// The arguments the model gave, when they parsed.
    public var arguments: JSONValue?
    /// Where the tool comes from.
    public var providerInfo: ProviderInfo?

    /// Creates failure details.
    public init(
        type: String? = nil, toolName: String? = nil, arguments: JSONValue? = nil, providerInfo: ProviderInfo? = nil
    ) {
        self.type = type
        self.toolName = toolName
        self.arguments = arguments
        self.providerInfo = providerInfo
    }

    enum CodingKeys: String, CodingKey {
        case type, arguments
        case toolName = "tool_name"
        case providerInfo = "provider_info"
    }
}

/// Where a tool comes from.
public struct ProviderInfo: Codable, Sendable, Equatable {
    /// `plugin` or `ephemeral_mcp`.
    public var type: String
    /// Set for plugins.
    public var pluginId: String?
    /// Set for ephemeral MCP servers.
    public var serverLabel: String?

    /// Creates provider details.
    public init(type: String, pluginId: String? = nil, serverLabel: String? = nil) {
        self.type = type
        self.pluginId = pluginId
        self.serverLabel = serverLabel
    }

    enum CodingKeys: String, CodingKey {
        case type
        case pluginId = "plugin_id"
        case serverLabel = "server_label"
    }

    /// Decodes tolerantly: a missing type reads as empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        type = try c.decodeIfPresent(String.self, forKey: .type) ?? ""
        pluginId = try c.decodeIfPresent(String.self, forKey: .pluginId)
        serverLabel = try c.decodeIfPresent(String.self, forKey: .serverLabel)
    }
}

/// Token counts and speed of a turn.
public struct ChatStats: Codable, Sendable, Equatable {
    /// Tokens in the prompt the model saw.
    public var inputTokens: Int?
    /// Reasoning tokens included.
    public var totalOutputTokens: Int?
    /// Of the output, the reasoning tokens.
    public var reasoningOutputTokens: Int?
    /// Generation speed.
    public var tokensPerSecond: Double?
    /// Delay before the first generated token.
    public var timeToFirstTokenSeconds: Double?
    /// Present when the turn had to load the model.
    public var modelLoadTimeSeconds: Double?

    /// Creates statistics.
    public init(
        inputTokens: Int? = nil, totalOutputTokens: Int? = nil, reasoningOutputTokens: Int? = nil,
        tokensPerSecond: Double? = nil, timeToFirstTokenSeconds: Double? = nil, modelLoadTimeSeconds: Double? = nil
    ) {
        self.inputTokens = inputTokens
        self.totalOutputTokens = totalOutputTokens
        self.reasoningOutputTokens = reasoningOutputTokens
        self.tokensPerSecond = tokensPerSecond
        self.timeToFirstTokenSeconds = timeToFirstTokenSeconds
        self.modelLoadTimeSeconds = modelLoadTimeSeconds
    }

    enum CodingKeys: String, CodingKey {
        case inputTokens = "input_tokens"
        case totalOutputTokens = "total_output_tokens"
        case reasoningOutputTokens = "reasoning_output_tokens"
        case tokensPerSecond = "tokens_per_second"
        case timeToFirstTokenSeconds = "time_to_first_token_seconds"
        case modelLoadTimeSeconds = "model_load_time_seconds"
    }
}

extension JSONValue {
    /// A string as itself, `null` as nil, anything else as compact JSON text.
    var textValue: String? {
        switch self {
        case .null: nil
        case .string(let text): text
        default: jsonString
        }
    }
}
