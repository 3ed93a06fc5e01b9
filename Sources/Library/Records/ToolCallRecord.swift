/// A tool call the model made while writing a reply.
public struct ToolCallRecord: Equatable, Hashable, Sendable, Codable {
    public var messageId: String
    /// 0-based order within the reply.
    public var position: Int
    public var name: String
    public var argumentsJSON: String
    public var output: String?
    /// The provider (plugin / MCP server) description as JSON text.
    public var providerJSON: String?
    public var status: ToolCallStatus
    public var failureReason: String?

    public init(
        messageId: String, position: Int, name: String, argumentsJSON: String, output: String? = nil,
        providerJSON: String? = nil, status: ToolCallStatus, failureReason: String? = nil
    ) {
        self.messageId = messageId
        self.position = position
        self.name = name
        self.argumentsJSON = argumentsJSON
        self.output = output
        self.providerJSON = providerJSON
        self.status = status
        self.failureReason = failureReason
    }
}

/// Where a tool call stands.
public enum ToolCallStatus: String, Sendable, Codable, CaseIterable {
    case running, succeeded, failed
}
