import Foundation

extension LibraryStore {
    /// The alternatives of a message — itself and every other message of its role that follows the same
    /// message — oldest first; exactly one of them is on the current branch.
    public func alternatives(messageId: String) throws -> [Message] {
        guard let message = try message(id: messageId) else {
            throw LibraryError.notFound(kind: "message", reference: messageId)
        }
        return try connection.query(
            """
            SELECT \(Self.messageColumns) FROM messages
            WHERE conversation_id = ? AND role = ? AND parent_id IS ? ORDER BY position
            """, [.text(message.conversationId), .text(message.role.rawValue), .text(message.parentId)],
            row: Self.message)
    }

    /// Makes `messageId` the end of its conversation's current branch: the messages after it leave the branch
    /// and stay as alternatives, and the next appended message follows it; nil rewinds to before the first message.
    public func rewindBranch(conversationId: String, to messageId: String?) throws {
        try connection.transaction {
            let position: Int
            if let messageId {
                guard let message = try message(id: messageId), message.conversationId == conversationId,
                    message.onBranch
                else {
                    throw LibraryError.notFound(kind: "message on the current branch", reference: messageId)
                }
                position = message.position
            } else {
                position = -1
            }
            try connection.run(
                "UPDATE messages SET on_branch = 0 WHERE conversation_id = ? AND on_branch AND position > ?",
                [.text(conversationId), .integer(Int64(position))])
        }
    }

    /// Makes `messageId` part of the current branch, and after it the newest alternative at every later turn;
    /// the conversation then continues from the branch's last reply.
    ///
    /// Returns the conversation's new current branch.
    @discardableResult
    public func chooseAlternative(messageId: String) throws -> [Message] {
        try connection.transaction {
            guard let chosen = try message(id: messageId) else {
                throw LibraryError.notFound(kind: "message", reference: messageId)
            }
            let conversationId = chosen.conversationId
            try connection.run("UPDATE messages SET on_branch = 0 WHERE conversation_id = ?", [.text(conversationId)])
            var branch: [String] = []
            var ancestor = chosen.parentId
            while let id = ancestor, !branch.contains(id) {
                branch.append(id)
                ancestor =
                    try connection.first("SELECT parent_id FROM messages WHERE id = ?", [.text(id)]) {
                        $0.optionalString(0)
                    } ?? nil
            }
            var descendant: String? = chosen.id
            while let id = descendant, !branch.contains(id) {
                branch.append(id)
                descendant = try connection.first(
                    "SELECT id FROM messages WHERE conversation_id = ? AND parent_id = ? ORDER BY position DESC LIMIT 1",
                    [.text(conversationId), .text(id)]
                ) { $0.string(0) }
            }
            for id in branch {
                try connection.run("UPDATE messages SET on_branch = 1 WHERE id = ?", [.text(id)])
            }
            let current = try messages(conversationId: conversationId)
            if let reply = current.last(where: { $0.role == .assistant }) {
                let server = try reply.serverURL ?? conversation(id: conversationId)?.serverURL
                try setContinuation(
                    conversationId: conversationId, serverURL: server,
                    responseId: reply.responseId ?? reply.parentResponseId)
            } else {
                try setContinuation(conversationId: conversationId, serverURL: nil, responseId: nil)
            }
            return current
        }
    }

    /// Removes a user message that nothing answers or follows (a send that failed before any reply was saved), with
    /// its attachments, so a failed send leaves no unanswered turn behind; the message before it ends the branch again.
    ///
    /// Throws `LibraryError.notFound` when the message is not a user message, or something follows it.
    public func removeUnanswered(messageId: String) throws {
        try connection.transaction {
            let followed =
                try connection.first("SELECT 1 FROM messages WHERE parent_id = ?", [.text(messageId)]) { _ in true }
                ?? false
            guard !followed, try message(id: messageId)?.role == .user else {
                throw LibraryError.notFound(kind: "unanswered message", reference: messageId)
            }
            try connection.run("DELETE FROM messages WHERE id = ?", [.text(messageId)])
        }
    }

    /// Removes the reply `messageId` of the conversation and whatever follows it, as an editor's undo of an answer asked
    /// again does; the caller chooses what is current afterwards.
    ///
    /// Throws `LibraryError.notFound` when `messageId` is not a reply in the conversation.
    public func removeReply(conversationId: String, messageId: String) throws {
        try connection.transaction {
            guard let reply = try message(id: messageId), reply.conversationId == conversationId,
                reply.role == .assistant
            else {
                throw LibraryError.notFound(kind: "reply", reference: messageId)
            }
            try deleteWithFollowers(messageId)
        }
    }

    /// Deletes the message `messageId` and every message that follows it, on any branch.
    private func deleteWithFollowers(_ messageId: String) throws {
        try connection.run(
            """
            WITH RECURSIVE removed(id) AS (
                SELECT ? UNION SELECT messages.id FROM messages JOIN removed ON messages.parent_id = removed.id)
            DELETE FROM messages WHERE id IN (SELECT id FROM removed)
            """, [.text(messageId)])
    }

    /// Withdraws the last exchange of the conversation's current branch — the user message `messageId` names (or whose
    /// reply it names), its replies and whatever follows them — as an editor's undo of a send does; the branch ends at the
    /// exchange before, and the conversation continues from its reply. Returns the new current branch.
    ///
    /// Throws `LibraryError.notFound` when `messageId` is not in the branch's last exchange.
    @discardableResult
    public func withdrawLastExchange(conversationId: String, messageId: String) throws -> [Message] {
        try connection.transaction {
            let branch = try messages(conversationId: conversationId)
            guard let turn = branch.lastIndex(where: { $0.role == .user }),
                branch[turn...].contains(where: { $0.id == messageId })
            else {
                throw LibraryError.notFound(kind: "message of the last exchange", reference: messageId)
            }
            try rewindBranch(conversationId: conversationId, to: branch[turn].parentId)
            try deleteWithFollowers(branch[turn].id)
            let current = Array(branch[..<turn])
            if let reply = current.last(where: { $0.role == .assistant }) {
                try setContinuation(
                    conversationId: conversationId,
                    serverURL: try reply.serverURL ?? conversation(id: conversationId)?.serverURL,
                    responseId: reply.responseId ?? reply.parentResponseId)
            } else {
                try setContinuation(conversationId: conversationId, serverURL: nil, responseId: nil)
            }
            return current
        }
    }
}
