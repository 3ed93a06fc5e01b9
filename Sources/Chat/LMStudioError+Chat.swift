import LMStudio

extension LMStudioError {
    /// Whether the server refused a request because it does not know its `previous_response_id`.
    public var isUnknownResponseId: Bool {
        switch self {
        case .invalidRequest(let message, let param, _):
            return param == "previous_response_id" || Self.mentionsResponseId(message)
        case .modelNotFound(let message), .server(_, let message):
            return Self.mentionsResponseId(message)
        default:
            return false
        }
    }

    /// Whether the server refused a request because of its integrations (MCP servers or plugins).
    public var concernsIntegrations: Bool {
        switch self {
        case .invalidRequest(let message, let param, _):
            return param == "integrations" || Self.mentionsIntegration(message)
        case .server(_, let message):
            return Self.mentionsIntegration(message)
        default:
            return false
        }
    }

    private static func mentionsIntegration(_ message: String) -> Bool {
        let lowered = message.lowercased()
        return lowered.contains("mcp") || lowered.contains("plugin") || lowered.contains("integration")
    }

    private static func mentionsResponseId(_ message: String) -> Bool {
        let lowered = message.lowercased()
        return lowered.contains("previous_response_id") || (lowered.contains("resp_") && lowered.contains("not found"))
            || (lowered.contains("response") && lowered.contains("not found"))
    }

    /// A stream `error` event in words, with what to do for the kinds that have a known remedy.
    public static func describe(streamError error: APIErrorPayload) -> String {
        let message = error.message.isEmpty ? "no details" : error.message
        switch error.type {
        case "mcp_connection_error":
            return "An MCP server could not be reached: \(message). Check that it is running, and that LM Studio allows it: Developer → Server Settings → \"Allow per-request MCPs\" (for MCP server URLs) or \"Allow calling servers from mcp.json\" (for mcp/… plugins; it needs \"Require Authentication\" on and an API token)."
        case "plugin_connection_error":
            return "An LM Studio plugin could not be reached: \(message). Check that the plugin is installed and enabled in LM Studio, and that Developer → Server Settings → \"Allow calling servers from mcp.json\" is on for mcp/… plugins (it needs \"Require Authentication\" on and an API token)."
        case "model_not_found":
            return "Model not found: \(message). `llmster models` lists the downloaded models."
        default:
            if ReplyErrorKind(error) == .contextOverflow {
                return "The conversation no longer fits the model's context: \(message). Load the model with a larger context (`llmster load MODEL --context-length N`) or start a new conversation."
            }
            return "The server reported an error (\(error.type ?? "unknown")): \(message)"
        }
    }
}
