import LMStudio
import Library

/// Why a message could not be sent or its reply not saved, in words a user can act on.
public enum ChatError: Error, Equatable, CustomStringConvertible {
    case noModel
    /// The server has no model with this key or instance id; `suggestion` is the downloaded key nearest it, if one is near.
    case modelNotDownloaded(String, suggestion: String? = nil)
    case notAChatModel(String)
    /// LM Studio cannot load this model (neither an LLM nor an embedding model).
    case notLoadable(String)
    /// No loaded instance has this id.
    case notLoaded(instance: String)
    case visionUnsupported(String)
    case reasoningNotAllowed(value: String, model: String, allowed: [String])
    case continuationLost(conversationId: String)
    /// The conversation's server context is held by `server` (nil: unknown), not the `configured` server, so
    /// nothing was sent; see `ChatSession.serverContext(of:)`.
    case continuationElsewhere(conversationId: String, server: String?, configured: String)
    case nothingToRetry
    /// A retry or an edit named the last user message the face showed, and the branch's last user message is another
    /// (another face sent meanwhile); nothing was sent.
    case branchMovedOn(edit: Bool)
    /// A fork named reply `number`, but the conversation's current branch has `count` replies.
    case noSuchReply(number: Int, count: Int)
    /// No conversation's id, id prefix or title is `reference`; `closest` lists the conversations whose titles come nearest.
    case unknownConversation(reference: String, closest: [ConversationCandidate])
    /// `configured` lists the integrations the configuration does define.
    case unknownIntegration(String, configured: [String])
    /// No `preset.NAME.…` line names this preset.
    case unknownPreset(String, configured: [String])
    case integrationRefused(String)
    /// The server does not know a field of the named integration (an older LM Studio): the server's message.
    case integrationFieldUnknown(String, integration: String?)
    case credentials(CredentialsError)
    case server(LMStudioError)
    /// The library refused a read or write; `LibraryError.notFound` and `.ambiguousConversation` mean the reference matched no single conversation.
    case storage(LibraryError)
    /// The library was closed for a restore that failed, and could not be opened again.
    case libraryClosed
    /// A conversation setting was refused; nothing was changed.
    case invalidSetting(SettingError)

    /// The category of the failure (see `ErrorCategory`): what the command line's exit status and rpc's error kind come from.
    public var category: ErrorCategory {
        switch self {
        case .noModel, .modelNotDownloaded: .modelNotFound
        case .notAChatModel, .notLoadable, .visionUnsupported, .reasoningNotAllowed, .nothingToRetry, .branchMovedOn,
            .unknownIntegration, .unknownPreset,
            .invalidSetting:
            .invalid
        case .continuationLost, .continuationElsewhere: .continuationLost
        case .noSuchReply, .unknownConversation, .notLoaded: .notFound
        case .integrationRefused, .integrationFieldUnknown: .server
        case .credentials: .authentication
        case .server(let error): error.category
        case .storage(let error): error.category
        case .libraryClosed: .storage
        }
    }

    public var description: String {
        switch self {
        case .noModel:
            return
                "No model chosen for this conversation. Pass -m MODEL, use /model, or set default_model in the config; `llmster models` lists them."
        case .modelNotDownloaded(let key, let suggestion?):
            return
                "\(key) is not downloaded on this server; did you mean \(suggestion)? (`llmster models` lists what is downloaded)"
        case .modelNotDownloaded(let key, nil):
            return
                "\(key) is not downloaded on this server. `llmster models` lists the downloaded models; `llmster download \(key)` fetches it."
        case .notAChatModel(let key):
            return "\(key) is an embedding model and cannot chat. Choose an LLM (`llmster models`)."
        case .notLoadable(let key):
            return "\(key) is not a model LM Studio can load (neither an LLM nor an embedding model)."
        case .notLoaded(let instance):
            return "\(instance) is not a loaded instance; `llmster ps` (or /ps) lists them."
        case .visionUnsupported(let key):
            return
                "\(key) cannot read images (no vision capability). Choose a vision model (`llmster models --vision`)."
        case .reasoningNotAllowed(let value, let model, let allowed):
            if allowed.isEmpty { return "\(model) has no reasoning setting; remove reasoning '\(value)'." }
            return "reasoning '\(value)' is not offered by \(model); choose one of: \(allowed.joined(separator: ", "))."
        case .continuationLost:
            return
                "The server no longer has this conversation's context (it was restarted, or this conversation comes from another machine). The local transcript is kept; continue with a fresh server context to go on (the model will not remember earlier turns)."
        case .continuationElsewhere(_, let server, let configured):
            let holder =
                server.map { "is held by \(ServerURL.redactingPasswords(in: $0))" }
                ?? "is on a server llmster did not record"
            return
                "This conversation's server context \(holder), but llmster is configured for \(ServerURL.redactingPasswords(in: configured)): this server would answer without the earlier turns, so nothing was sent. The local transcript is kept; continue with a fresh server context here (the model will not remember earlier turns), or switch to that server to continue there."
        case .nothingToRetry:
            return "There is no earlier message in this conversation to send again."
        case .branchMovedOn(let edit):
            return
                "\(edit ? "The message this edit replaces" : "The message shown last") is no longer the conversation's last: another client sent to it meanwhile (or, in an editor, undo took a later exchange out of view), so nothing was \(edit ? "sent" : "asked again"). Look at the conversation as it is now, then \(edit ? "edit" : "ask") again."
        case .noSuchReply(_, 0):
            return "This conversation has no reply yet to fork from."
        case .noSuchReply(let number, let count):
            return
                "There is no reply \(number): this conversation has \(count == 1 ? "1 reply" : "\(count) replies") (1 is the first)."
        case .unknownConversation(let reference, let closest):
            let head = "no conversation matches \"\(reference)\" (an id, id prefix or title)"
            guard !closest.isEmpty else { return head + "; `llmster chats` or /chats lists them" }
            return head + "; close ones:\n"
                + closest.map { "  \($0.id.prefix(8))  \($0.title)" }.joined(separator: "\n")
        case .unknownIntegration(let name, let configured):
            let known = configured.isEmpty ? "" : " (configured: \(configured.joined(separator: ", ")))"
            return
                "The integration '\(name)' is not configured\(known). Add `integration.\(name) = …` to the config, or turn it off for this conversation (/integrations off \(name))."
        case .unknownPreset(let name, let configured):
            let known = configured.isEmpty ? "none is configured" : "configured: " + configured.joined(separator: ", ")
            return "There is no preset '\(name)' (\(known)). Add `preset.\(name).system = …` to the config."
        case .integrationFieldUnknown(let message, let name):
            let which = name.map { "the integration '\($0)'" } ?? "an integration"
            return
                "This LM Studio does not accept a field of \(which): \(message). Update LM Studio, or drop the field from "
                + "`integration.\(name ?? "NAME")` in the config (a tools list is sent as allowed_tools)."
        case .integrationRefused(let message):
            if let remedy = LMStudioError.nonPublicMCPRemedy(message) { return message + " " + remedy }
            return
                "\(message) LM Studio must allow the integration: in LM Studio's Developer → Server Settings, turn on \"Allow per-request MCPs\" for MCP server URLs (remote servers only), or, for plugins such as mcp/… from mcp.json, \"Allow calling servers from mcp.json\" — which needs \"Require Authentication\" on and an API token (LM_API_TOKEN or the credentials file)."
        case .credentials(let error):
            return error.description
        case .server(let error):
            return error.description
        case .storage(.notFound(let kind, let reference)):
            return LibraryError.notFound(kind: kind, reference: reference).description
        case .storage(let error):
            if case .ambiguousConversation = error { return error.description }
            return "The library could not be updated: \(error.description)"
        case .libraryClosed:
            return "the library at its usual path could not be reopened; restart llmster"
        case .invalidSetting(let error):
            return error.description
        }
    }
}
