/// A tool call the model made while writing a reply.
public struct ToolCallRecord: Equatable, Hashable, Sendable, Codable {
    /// The reply that made the call.
    public var messageId: String
    /// 0-based order within the reply.
    public var position: Int
    /// The tool's name.
    public var name: String
    /// The arguments as JSON text.
    public var argumentsJSON: String
    /// What the tool returned; nil until it has.
    public var output: String?
    /// The provider (plugin / MCP server) description as JSON text.
    public var providerJSON: String?
    /// Whether the call is running, succeeded or failed.
    public var status: ToolCallStatus
    /// Why the call failed.
    public var failureReason: String?
    /// How much of the reply's answer text (in UTF-8 bytes) had streamed when the call was made; nil for a call
    /// saved before llmster kept the order, which reads as made before any answer text.
    public var answerOffset: Int?
    /// How much of the reply's reasoning (in UTF-8 bytes) had streamed when the call was made; nil for a call
    /// saved before llmster kept the order, which reads as made after all the reasoning.
    public var reasoningOffset: Int?

    /// Creates a value from its fields.
    public init(
        messageId: String, position: Int, name: String, argumentsJSON: String, output: String? = nil,
        providerJSON: String? = nil, status: ToolCallStatus, failureReason: String? = nil,
        answerOffset: Int? = nil, reasoningOffset: Int? = nil
    ) {
        self.messageId = messageId
        self.position = position
        self.name = name
        self.argumentsJSON = argumentsJSON
        self.output = output
        self.providerJSON = providerJSON
        self.status = status
        self.failureReason = failureReason
        self.answerOffset = answerOffset
        self.reasoningOffset = reasoningOffset
    }
}

/// Where a tool call stands.
public enum ToolCallStatus: String, Sendable, Codable, CaseIterable {
    case running, succeeded, failed
}
