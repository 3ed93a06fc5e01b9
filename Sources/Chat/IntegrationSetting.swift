import LMStudio

/// A named server integration from the configuration: an LM Studio plugin or an ephemeral MCP server.
///
/// Conversations refer to integrations by name only; secret headers come from the credentials file
/// when a request is built, so they never reach the library, exports or backups.
public struct IntegrationSetting: Sendable, Equatable {
    public var name: String
    /// A plugin id such as `mcp/playwright`, or an MCP server's `http(s)://` URL.
    public var target: String
    /// The tools the model may call; nil allows all.
    public var allowedTools: [String]?

    /// Creates a setting.
    public init(name: String, target: String, allowedTools: [String]? = nil) {
        self.name = name
        self.target = target
        self.allowedTools = allowedTools
    }

    /// Whether the target is an ephemeral MCP server (a URL) rather than a plugin id.
    public var isEphemeralMCP: Bool { target.hasPrefix("http://") || target.hasPrefix("https://") }

    /// The request's `integrations` entry, with `headers` (from the credentials file) for an MCP server.
    public func requestIntegration(headers: [String: String]?) -> Integration {
        if isEphemeralMCP {
            return .ephemeralMCP(
                serverLabel: name, serverURL: target, allowedTools: allowedTools,
                headers: headers?.isEmpty == false ? headers : nil)
        }
        return .plugin(id: target, allowedTools: allowedTools)
    }
}
