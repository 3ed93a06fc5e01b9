import Library

/// Regenerate and edit: a new reply or an edited last turn becomes the current branch, and what it replaces
/// stays as an alternative. Each is asked in the context the replaced answer was asked in (its parent
/// continuation), so the model never sees the question twice.
extension ChatSession {
    /// Sends the conversation's last user turn again as a new alternative of its reply, which becomes current.
    ///
    /// Faces retry through `submit` (`TurnSubmission.retry`), which applies the load policy and asks what a turn needs;
    /// this is the send alone. Asks with the replaced reply's parent continuation (or, for an unanswered turn, the
    /// conversation's); `freshContext` asks without any (after `ChatError.continuationLost`), `recap` with a ``Recap``
    /// of the turns before it as the fresh context's first input. When nothing reached the server, the replaced reply
    /// stays current.
    public func regenerate(
        in conversationId: String, freshContext: Bool = false, recap: Bool = false,
        display: @escaping ReplyObserver,
        replyCreated: (@Sendable (String) async -> Void)? = nil
    ) async throws -> SavedReply {
        let writing = try await writerLock(conversationId)
        defer { withExtendedLifetime(writing) {} }
        var saved = try await regenerateAsWriter(
            in: conversationId, freshContext: freshContext, recap: recap, display: display,
            replyCreated: replyCreated)
        saved.startedFreshContext = freshContext
        return saved
    }

    /// `regenerate`, by the conversation's writer.
    func regenerateAsWriter(
        in conversationId: String, freshContext: Bool, recap: Bool, display: @escaping ReplyObserver,
        replyCreated: (@Sendable (String) async -> Void)?
    ) async throws -> SavedReply {
        let last = try lastTurn(in: conversationId)
        let continuation = try existingConversation(conversationId)
        if let reply = last.reply {
            try storage {
                try withLibrary { library in
                    try library.rewindBranch(conversationId: conversationId, to: last.turn.id)
                    try library.setContinuation(
                        conversationId: conversationId, serverURL: reply.serverURL, responseId: reply.parentResponseId)
                }
            }
            replacedTurns[conversationId] = ReplacedTurn(
                by: .retry(turnId: last.turn.id), shown: reply.id, continuation: continuation)
        }
        do {
            return try await answer(
                Turn(text: last.turn.text, images: last.images, context: last.context), in: conversationId,
                freshContext: freshContext, recap: recap, display: display, replyCreated: replyCreated)
        } catch {
            replacedTurns[conversationId] = nil
            if let reply = last.reply {
                try? storage {
                    try withLibrary { library in
                        if try library.messages(conversationId: conversationId).last?.role == .user {
                            try library.chooseAlternative(messageId: reply.id)
                            try Self.restoreContinuation(of: continuation, in: library)
                        }
                    }
                }
            }
            throw error
        }
    }

    /// Replaces the conversation's last user turn with `text` (keeping its images and context items) and sends it in the
    /// context the original was sent in; the original turn and its replies stay as an alternative.
    ///
    /// Faces edit through `submit` (`TurnSubmission.edit`); this is the send alone. When the send fails before a reply,
    /// nothing of the edit is kept: the original turn is current again.
    public func edit(
        in conversationId: String, text: String, freshContext: Bool = false, recap: Bool = false,
        display: @escaping ReplyObserver,
        replyCreated: (@Sendable (String) async -> Void)? = nil
    ) async throws -> SavedReply {
        let writing = try await writerLock(conversationId)
        defer { withExtendedLifetime(writing) {} }
        var saved = try await editAsWriter(
            in: conversationId, text: text, freshContext: freshContext, recap: recap, display: display,
            replyCreated: replyCreated)
        saved.startedFreshContext = freshContext
        return saved
    }

    /// `edit`, by the conversation's writer.
    func editAsWriter(
        in conversationId: String, text: String, freshContext: Bool, recap: Bool, display: @escaping ReplyObserver,
        replyCreated: (@Sendable (String) async -> Void)?
    ) async throws -> SavedReply {
        let last = try lastTurn(in: conversationId)
        let continuation = try existingConversation(conversationId)
        try storage {
            try withLibrary { library in
                try library.rewindBranch(conversationId: conversationId, to: last.turn.parentId)
                if let reply = last.reply {
                    try library.setContinuation(
                        conversationId: conversationId, serverURL: reply.serverURL, responseId: reply.parentResponseId)
                }
            }
        }
        replacedTurns[conversationId] = ReplacedTurn(
            by: .edit(parentId: last.turn.parentId), shown: last.reply?.id ?? last.turn.id, continuation: continuation)
        do {
            return try await sendAsWriter(
                Turn(text: text, images: last.images, context: last.context), in: conversationId,
                freshContext: freshContext, recap: recap, display: display, replyCreated: replyCreated)
        } catch {
            // Nothing answered the edited turn (`sendAsWriter` saved none): the original, with the reply that was shown, is current again.
            replacedTurns[conversationId] = nil
            try? storage {
                try withLibrary { library in
                    _ = try library.chooseAlternative(messageId: last.reply?.id ?? last.turn.id)
                    try Self.restoreContinuation(of: continuation, in: library)
                }
            }
            throw error
        }
    }

    /// What an edit or an answer asked again replaced: the message shown last before it (the reply, or the turn when
    /// none answered it) and the conversation as it stood, with its server context.
    struct ReplacedTurn {
        enum Replacement {
            /// An edit of the turn that followed `parentId`.
            case edit(parentId: String?)
            /// Another answer to the turn `turnId`.
            case retry(turnId: String)
        }
        var by: Replacement
        var shown: String
        var continuation: Conversation
    }

    /// The alternatives of `messageId`, or of the conversation's last message when nil, oldest first.
    ///
    /// Throws `LibraryError.notFound` when the message is not in the conversation.
    public func alternatives(in conversationId: String, messageId: String? = nil) throws -> [Message] {
        try withLibrary { library in
            guard let id = try messageId ?? library.messages(conversationId: conversationId).last?.id else { return [] }
            let alternatives = try library.alternatives(messageId: id)
            guard alternatives.first?.conversationId == conversationId else {
                throw LibraryError.notFound(kind: "message", reference: "\(id) in conversation \(conversationId)")
            }
            return alternatives
        }
    }

    /// Makes the alternative `messageId` current (with the newest alternatives after it); the conversation
    /// then continues from that branch. Returns the new current branch; throws `LibraryError.notFound`.
    @discardableResult
    public func chooseAlternative(_ messageId: String) throws -> [Message] {
        try withLibrary { try $0.chooseAlternative(messageId: messageId) }
    }

    /// The last user message on the conversation's current branch; nil when there is none yet.
    public func lastUserMessage(in conversationId: String) throws -> Message? {
        try storage { try library.messages(conversationId: conversationId).last { $0.role == .user } }
    }

    /// The last user turn on the current branch, its images, its context items and its reply (if any).
    func lastTurn(in conversationId: String) throws -> (
        turn: Message, images: [ImageInput], context: [ContextItem], reply: Message?
    ) {
        try storage {
            try withLibrary { library in
                let branch = try library.messages(conversationId: conversationId)
                guard let index = branch.lastIndex(where: { $0.role == .user }) else { throw ChatError.nothingToRetry }
                let attachments = try library.attachments(messageId: branch[index].id)
                let context = attachments.compactMap(ContextItem.init(attachment:))
                let images = attachments.filter { ContextItem(attachment: $0) == nil }
                    .map { ImageInput(name: $0.name, mimeType: $0.mimeType, bytes: $0.bytes) }
                return (branch[index], images, context, branch[(index + 1)...].first { $0.role == .assistant })
            }
        }
    }

    /// Puts back the server context `conversation` had before a retry or an edit that nothing answered. Choosing the
    /// replaced turn again does not: a reply records the server of the context it was asked in, not of its own, so the
    /// first turn's reply would leave its response id without a server, and the conversation held "elsewhere".
    static func restoreContinuation(of conversation: Conversation, in library: LibraryStore) throws {
        try library.setContinuation(
            conversationId: conversation.id, serverURL: conversation.serverURL, responseId: conversation.lastResponseId)
    }

    /// Removes a conversation whose first send failed before any reply was saved.
    func discardUnanswered(_ conversationId: String) throws {
        try withLibrary { library in
            guard try !library.messages(conversationId: conversationId).contains(where: { $0.role == .assistant })
            else { return }
            try library.delete(conversationId: conversationId)
        }
    }
}
