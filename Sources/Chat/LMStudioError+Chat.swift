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
            return param == "integrations" || param?.hasPrefix("integrations.") == true
                || Self.mentionsIntegration(message)
        case .server(_, let message):
            return Self.mentionsIntegration(message)
        default:
            return false
        }
    }

    /// For a refusal of a field of one integration (`code: "unrecognized_keys"`, `param: "integrations.N"`, as an
    /// older 0.4 server answers a field it does not know), the integration's position in the request.
    public var unknownIntegrationFieldIndex: Int? {
        guard case .invalidRequest(_, let param?, let code) = self, code == "unrecognized_keys",
            param.hasPrefix("integrations.")
        else { return nil }
        return Int(param.dropFirst("integrations.".count).prefix { $0.isNumber })
    }

    /// What to do when LM Studio refuses an MCP server URL at a local or private address, as 0.4.15 and later do for
    /// the MCP servers a request names (lmstudio-bug-tracker#1993); nil for other messages.
    public static func nonPublicMCPRemedy(_ message: String) -> String? {
        guard message.lowercased().contains("non-public address") else { return nil }
        return "LM Studio 0.4.15 and later connect to an MCP server named by URL only at a public address. "
            + "For a server on this machine or network, add it to LM Studio's mcp.json and use it as a plugin "
            + "(integration.NAME = mcp/NAME), which needs Developer → Server Settings → \"Allow calling servers from mcp.json\" on, "
            + "\"Require Authentication\" on and an API token."
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
            if let remedy = nonPublicMCPRemedy(message) { return "An MCP server was refused: \(message) " + remedy }
            return
                "An MCP server could not be reached: \(message). Check that it is running, and that LM Studio allows it: Developer → Server Settings → \"Allow per-request MCPs\" (for MCP server URLs) or \"Allow calling servers from mcp.json\" (for mcp/… plugins; it needs \"Require Authentication\" on and an API token)."
        case "plugin_connection_error":
            return
                "An LM Studio plugin could not be reached: \(message). Check that the plugin is installed and enabled in LM Studio, and that Developer → Server Settings → \"Allow calling servers from mcp.json\" is on for mcp/… plugins (it needs \"Require Authentication\" on and an API token)."
        case "model_not_found":
            return "Model not found: \(message). `llmster models` lists the downloaded models."
        default:
            if ReplyErrorKind(error) == .contextOverflow {
                return
                    "The conversation no longer fits the model's context: \(message). Load the model with a larger context (`llmster load MODEL --context-length N`) or start a new conversation."
            }
            return "The server reported an error (\(error.type ?? "unknown")): \(message)"
        }
    }
}
