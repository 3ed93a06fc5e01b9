import Library

/// Where a conversation's earlier turns are, seen from the configured server.
public enum ServerContext: Equatable, Sendable {
    /// Nothing to continue: a new conversation, or its context was dropped (the next request starts a fresh one).
    case none
    /// The configured server holds the context: the next request continues it.
    case here
    /// Another server holds the context (`server`; nil when the conversation does not say which): the configured
    /// server would answer without the earlier turns.
    case elsewhere(server: String?)

    /// The rule: no response id is nothing to continue; one without a server, or from a server that is not
    /// `configured`, is elsewhere (llmster never continues it silently).
    public init(responseId: String?, serverURL: String?, configured: String) {
        guard responseId != nil else {
            self = .none
            return
        }
        guard let serverURL else {
            self = .elsewhere(server: nil)
            return
        }
        self = ServerURL.same(serverURL, configured) ? .here : .elsewhere(server: serverURL)
    }
}

extension ChatSession {
    /// Where the earlier turns of `conversation` are, seen from the configured server.
    ///
    /// The rule every face shares: a conversation whose last reply (or whose imported continuation) came from
    /// another server is not continued silently: `submit` returns a fresh-context decision (nothing saved), and
    /// `regenerate` and `edit` throw `ChatError.continuationElsewhere`, so the face can say so and offer a fresh server
    /// context the way it does after a lost one.
    public nonisolated func serverContext(of conversation: Conversation) -> ServerContext {
        ServerContext(
            responseId: conversation.lastResponseId, serverURL: conversation.serverURL, configured: configuration.server
        )
    }

    /// Throws `ChatError.continuationElsewhere` when another server holds the conversation's context.
    func requireServerContextHere(_ conversation: Conversation) throws {
        if case .elsewhere(let server) = serverContext(of: conversation) {
            throw ChatError.continuationElsewhere(
                conversationId: conversation.id, server: heldOn(server, by: conversation),
                configured: configuration.server)
        }
    }
}
