import LMStudio

/// Why a message could not be sent or its reply not saved, in words a user can act on.
public enum ChatError: Error, Equatable, CustomStringConvertible {
    case noModel
    case modelNotDownloaded(String)
    case notAChatModel(String)
    case visionUnsupported(String)
    case reasoningNotAllowed(value: String, model: String, allowed: [String])
    case continuationLost(conversationId: String)
    case nothingToRetry
    case unknownIntegration(String)
    case integrationRefused(String)
    case credentials(String)
    case server(LMStudioError)
    case storage(String)

    public var description: String {
        switch self {
        case .noModel:
            return "No model chosen for this conversation. Pass -m MODEL, use /model, or set default_model in the config; `llmster models` lists them."
        case .modelNotDownloaded(let key):
            return "\(key) is not downloaded on this server. `llmster models` lists the downloaded models; `llmster download \(key)` fetches it."
        case .notAChatModel(let key):
            return "\(key) is an embedding model and cannot chat. Choose an LLM (`llmster models`)."
        case .visionUnsupported(let key):
            return "\(key) cannot read images (no vision capability). Choose a vision model (`llmster models --vision`)."
        case .reasoningNotAllowed(let value, let model, let allowed):
            if allowed.isEmpty { return "\(model) has no reasoning setting; remove reasoning '\(value)'." }
            return "reasoning '\(value)' is not offered by \(model); choose one of: \(allowed.joined(separator: ", "))."
        case .continuationLost:
            return "The server no longer has this conversation's context (it was restarted, or this conversation comes from another machine). The local transcript is kept; continue with a fresh server context to go on (the model will not remember earlier turns)."
        case .nothingToRetry:
            return "There is no earlier message in this conversation to send again."
        case .unknownIntegration(let name):
            return "The integration '\(name)' is not configured. Add `integration.\(name) = …` to the config, or turn it off for this conversation (/integrations off \(name))."
        case .integrationRefused(let message):
            return "\(message) LM Studio must allow the integration: in LM Studio's Developer → Server Settings, turn on \"Allow per-request MCPs\" for MCP server URLs, or \"Allow calling servers from mcp.json\" for plugins such as mcp/…."
        case .credentials(let message):
            return message
        case .server(let error):
            return error.description
        case .storage(let message):
            return "The library could not be updated: \(message)"
        }
    }
}
