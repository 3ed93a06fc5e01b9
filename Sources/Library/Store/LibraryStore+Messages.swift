import Foundation
import SystemSupport

extension LibraryStore {
    /// A message's text or reasoning followed by its reply pieces in order: the pieces of a reply still streaming, of
    /// one whose final save did not fit on the disk, or of a long reply, saved as pieces of at most ``pieceBytes``.
    /// Without pieces the concatenation is NULL and the column comes back as stored, not copied.
    static func joined(_ column: String) -> String {
        """
        coalesce(messages.\(column) || (SELECT group_concat(piece, '') FROM (SELECT \(column) AS piece FROM reply_pieces
            WHERE message_id = messages.id ORDER BY seq)), messages.\(column))
        """
    }

    static let messageColumns = """
        id, conversation_id, role, \(joined("text")), \(joined("reasoning")), status, error, stats, model_instance_id, response_id,
        created_at, updated_at, position, parent_id, on_branch, parent_response_id, server_url, rewritten, streamed_version_id
        """

    static func message(_ row: SQLiteStatement) -> Message {
        Message(
            id: row.string(0), conversationId: row.string(1), role: MessageRole(rawValue: row.string(2)) ?? .user,
            text: row.string(3), reasoning: row.string(4), status: MessageStatus(rawValue: row.string(5)) ?? .error,
            error: row.optionalString(6), statsJSON: row.optionalString(7), modelInstanceId: row.optionalString(8),
            responseId: row.optionalString(9), createdAt: Date(milliseconds: row.int64(10)),
            updatedAt: Date(milliseconds: row.int64(11)), position: row.int(12), parentId: row.optionalString(13),
            onBranch: row.int(14) != 0, parentResponseId: row.optionalString(15), serverURL: row.optionalString(16),
            isRewritten: row.bool(17), streamedVersionId: row.optionalString(18))
    }

    /// Appends a message at the end of a conversation's current branch and touches the conversation's `updatedAt` and
    /// last use (see `mostRecentConversation`).
    ///
    /// A reply records the conversation's continuation at this moment as the context it was asked in
    /// (`parentResponseId`, `serverURL`), so regenerating it later can ask in the same context. A `.streaming` message is marked as written by this process, so `recoverInterruptedReplies()` in
    /// another process leaves it alone while this one runs. `createdAt` is for imports and defaults to now.
    @discardableResult
    public func appendMessage(
        conversationId: String, role: MessageRole, _ content: MessageContent, createdAt: Date = Date()
    ) throws -> Message {
        let date = createdAt.stored
        return try connection.transaction {
            let position =
                try connection.first(
                    "SELECT ifnull(max(position) + 1, 0) FROM messages WHERE conversation_id = ?",
                    [.text(conversationId)]
                ) { $0.int(0) } ?? 0
            try touch(conversationId, at: date)
            let parentId = try connection.first(
                "SELECT id FROM messages WHERE conversation_id = ? AND on_branch ORDER BY position DESC LIMIT 1",
                [.text(conversationId)]
            ) { $0.string(0) }
            let context =
                try role == .assistant
                ? connection.first(
                    "SELECT last_response_id, server_url FROM conversations WHERE id = ?", [.text(conversationId)]
                ) { (responseId: $0.optionalString(0), serverURL: $0.optionalString(1)) }
                : nil
            let message = Message(
                id: Self.newID(), conversationId: conversationId, role: role, text: content.text,
                reasoning: content.reasoning,
                status: content.status, error: content.error, statsJSON: content.statsJSON,
                modelInstanceId: content.modelInstanceId, responseId: content.responseId, createdAt: date,
                updatedAt: date, position: position, parentId: parentId,
                parentResponseId: context?.responseId, serverURL: context?.serverURL)
            try connection.run(
                """
                INSERT INTO messages (id, conversation_id, position, role, text, reasoning, status, error, stats,
                    model_instance_id, response_id, created_at, updated_at, writer, parent_id, on_branch,
                    parent_response_id, server_url)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)
                """,
                [
                    .text(message.id), .text(conversationId), .integer(Int64(position)), .text(role.rawValue),
                    .text(content.text), .text(content.reasoning), .text(content.status.rawValue), .text(content.error),
                    .text(content.statsJSON), .text(content.modelInstanceId), .text(content.responseId),
                    .integer(date.milliseconds), .integer(date.milliseconds),
                    .text(content.status == .streaming ? writer : nil), .text(parentId),
                    .text(message.parentResponseId), .text(message.serverURL)
                ])
            return message
        }
    }

    /// The most text one reply piece holds: a long reply is saved, and a streaming one appended to, this much at a
    /// time, so a save needs memory for one piece beside the reply, not a second copy of it.
    public static let pieceBytes = 1 << 20

    /// Saves the whole state of a reply, replacing its text and its pieces (see `appendReplyPieces`); a text longer
    /// than ``pieceBytes`` is saved as pieces of at most that much, its first one in the message itself, which is
    /// what the search index reads (so of a long reply in a script of three-byte characters, about its first
    /// 350,000 characters are searchable).
    ///
    /// The text, reasoning and status of `reply`, and `rewritten`, replace the stored values; its nil values keep
    /// what is stored. Touches the conversation's `updatedAt`.
    public func updateReply(messageId: String, _ reply: MessageContent, rewritten: Bool = false) throws {
        let now = Date().milliseconds
        let textHead = Self.firstPiece(of: reply.text)
        let reasoningHead = Self.firstPiece(of: reply.reasoning)
        try connection.transaction {
            try updateReplyRow(
                messageId: messageId, text: textHead, reasoning: reasoningHead, reply, rewritten: rewritten, now: now)
            try connection.run("DELETE FROM reply_pieces WHERE message_id = ?", [.text(messageId)])
            try insertPieces(
                messageId: messageId, reply,
                after: SavedLength(text: textHead.utf8.count, reasoning: reasoningHead.utf8.count))
        }
    }

    /// Saves what a streaming reply received after the `saved` length of its text and reasoning (character
    /// boundaries where an earlier save ended) as pieces of at most ``pieceBytes``, in one transaction, without
    /// rewriting what was saved before, so a save costs memory and disk in proportion to the new text only.
    ///
    /// Readers see the message's text followed by its pieces. The status is `.streaming` while the reply streams, or
    /// the final status when the final save (`finishReply` or `updateReply`) did not fit; nil values keep what is
    /// stored. Touches the conversation's `updatedAt`.
    public func appendReplyPieces(messageId: String, _ reply: MessageContent, after saved: SavedLength = SavedLength())
        throws
    {
        let now = Date().milliseconds
        try connection.transaction {
            try insertPieces(messageId: messageId, reply, after: saved)
            try updateReplyRow(messageId: messageId, text: nil, reasoning: nil, reply, rewritten: nil, now: now)
        }
    }

    /// Ends a reply whose start was saved while it streamed: appends the rest as `appendReplyPieces` does, moves about
    /// the first ``pieceBytes`` of the answer into the message (what the search index reads), and writes the final
    /// state, so a long reply is not written a second time. `updateReply` saves a reply whole instead.
    public func finishReply(messageId: String, _ reply: MessageContent, after saved: SavedLength) throws {
        let now = Date().milliseconds
        try connection.transaction {
            try insertPieces(messageId: messageId, reply, after: saved)
            try moveAnswerStartIntoMessage(messageId)
            try updateReplyRow(messageId: messageId, text: nil, reasoning: nil, reply, rewritten: false, now: now)
        }
    }

    /// The first piece of `text` (all of it, not copied, when it fits one).
    private static func firstPiece(of text: String) -> String {
        guard let first = text.utf8.pieces(after: 0, atMost: pieceBytes).first, first.upperBound < text.endIndex else {
            return text
        }
        return String(decoding: text.utf8[first], as: UTF8.self)
    }

    /// Inserts the reply's text and reasoning after their `saved` length as pieces of at most ``pieceBytes``, answer
    /// and reasoning side by side.
    private func insertPieces(messageId: String, _ reply: MessageContent, after saved: SavedLength) throws {
        let textPieces = reply.text.utf8.pieces(after: saved.text, atMost: Self.pieceBytes)
        let reasoningPieces = reply.reasoning.utf8.pieces(after: saved.reasoning, atMost: Self.pieceBytes)
        for index in 0..<max(textPieces.count, reasoningPieces.count) {
            try connection.run(
                "INSERT INTO reply_pieces (message_id, text, reasoning) VALUES (?, ?, ?)",
                [
                    .text(messageId),
                    .text(
                        index < textPieces.count
                            ? String(decoding: reply.text.utf8[textPieces[index]], as: UTF8.self) : ""),
                    .text(
                        index < reasoningPieces.count
                            ? String(decoding: reply.reasoning.utf8[reasoningPieces[index]], as: UTF8.self) : "")
                ])
        }
    }

    /// Moves the answer of the message's first pieces into the message until it holds about ``pieceBytes`` of it
    /// (at most one piece more), leaving the pieces' reasoning where it is; pieces left empty are removed.
    func moveAnswerStartIntoMessage(_ messageId: String) throws {
        var held =
            try connection.first("SELECT length(CAST(text AS BLOB)) FROM messages WHERE id = ?", [.text(messageId)]) {
                $0.int(0)
            } ?? 0
        let pieces = try connection.query(
            "SELECT seq, length(CAST(text AS BLOB)) FROM reply_pieces WHERE message_id = ? AND text <> '' ORDER BY seq",
            [.text(messageId)]
        ) { ($0.int64(0), $0.int(1)) }
        var last: Int64?
        for (seq, length) in pieces where held < Self.pieceBytes {
            held += length
            last = seq
        }
        guard let last else { return }
        try connection.run(
            """
            UPDATE messages SET text = text || (SELECT group_concat(piece, '') FROM (SELECT text AS piece FROM reply_pieces
                WHERE message_id = ?1 AND seq <= ?2 ORDER BY seq)) WHERE id = ?1
            """, [.text(messageId), .integer(last)])
        try connection.run(
            "UPDATE reply_pieces SET text = '' WHERE message_id = ? AND seq <= ?", [.text(messageId), .integer(last)])
        try connection.run(
            "DELETE FROM reply_pieces WHERE message_id = ? AND text = '' AND reasoning = ''", [.text(messageId)])
    }

    /// Writes a reply's row (`text` and `reasoning` in place of the reply's own) and touches its conversation's
    /// `updatedAt`; a nil value keeps what is stored, and a missing message throws `notFound`.
    private func updateReplyRow(
        messageId: String, text: String?, reasoning: String?, _ reply: MessageContent, rewritten: Bool?, now: Int64
    ) throws {
        let changed = try connection.run(
            """
            UPDATE messages SET text = ifnull(?, text), reasoning = ifnull(?, reasoning), status = ?, error = ifnull(?, error),
                stats = ifnull(?, stats), model_instance_id = ifnull(?, model_instance_id),
                response_id = ifnull(?, response_id), updated_at = ?, writer = ?, rewritten = ifnull(?, rewritten)
            WHERE id = ?
            """,
            [
                .text(text), .text(reasoning), .text(reply.status.rawValue), .text(reply.error), .text(reply.statsJSON),
                .text(reply.modelInstanceId), .text(reply.responseId), .integer(now),
                .text(reply.status == .streaming ? writer : nil), SQLValue.bool(rewritten), .text(messageId)
            ])
        guard changed > 0 else { throw LibraryError.notFound(kind: "message", reference: messageId) }
        if let id = try connection.first(
            "UPDATE conversations SET updated_at = ? WHERE id = (SELECT conversation_id FROM messages WHERE id = ?) RETURNING id",
            [.integer(now), .text(messageId)], row: { $0.string(0) })
        {
            updatesWrittenHere[id] = now
        }
    }

    /// Copies the write-ahead log into the library file and empties it, so a write that failed for lack of space
    /// (the log keeps what streamed since the last checkpoint) can be tried again.
    public func checkpoint() throws {
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// A conversation's current branch in order (replaced alternatives left out; see `alternatives(messageId:)`).
    public func messages(conversationId: String) throws -> [Message] {
        try connection.query(
            "SELECT \(Self.messageColumns) FROM messages WHERE conversation_id = ? AND on_branch ORDER BY position",
            [.text(conversationId)], row: Self.message)
    }

    /// The user message ending the conversation's current branch with no reply after it (see
    /// `Message.unansweredIds(in:)`), so a face can offer it again rather than leave it twice; nil when the branch
    /// ends with a reply or is empty.
    ///
    /// While a send is waiting for the server's first answer, its message is this one too.
    public func trailingUnansweredMessage(conversationId: String) throws -> Message? {
        // The last turn's role first: a reply there (perhaps hundreds of MiB in pieces) is never read.
        let last = try connection.first(
            """
            SELECT id, role FROM messages
            WHERE conversation_id = ? AND on_branch AND role <> 'system' ORDER BY position DESC LIMIT 1
            """, [.text(conversationId)]
        ) { (id: $0.string(0), role: $0.string(1)) }
        guard let last, last.role == MessageRole.user.rawValue else { return nil }
        return try message(id: last.id)
    }

    /// The message with this id, or nil.
    public func message(id: String) throws -> Message? {
        try connection.first(
            "SELECT \(Self.messageColumns) FROM messages WHERE id = ?", [.text(id)], row: Self.message)
    }

    /// The stats of the conversation's latest reply that has any (e.g. to show the context used on resuming); with
    /// `before`, the latest one on the branch before that message (the context an edit of it is sent in).
    public func lastReplyStatistics(conversationId: String, before: String? = nil) throws -> ReplyStatistics? {
        try connection.first(
            """
            SELECT id, json_extract(stats, '$.input_tokens'), json_extract(stats, '$.total_output_tokens'),
                json_extract(stats, '$.reasoning_output_tokens'), json_extract(stats, '$.tokens_per_second'),
                json_extract(stats, '$.time_to_first_token_seconds'), json_extract(stats, '$.model_load_time_seconds')
            FROM messages WHERE conversation_id = ? AND on_branch AND stats IS NOT NULL
                AND position < coalesce((SELECT position FROM messages WHERE id = ?), 9223372036854775807)
            ORDER BY position DESC LIMIT 1
            """, [.text(conversationId), .text(before)]
        ) { row in
            ReplyStatistics(
                messageId: row.string(0), inputTokens: row.optionalInt(1), totalOutputTokens: row.optionalInt(2),
                reasoningOutputTokens: row.optionalInt(3), tokensPerSecond: row.isNull(4) ? nil : row.double(4),
                timeToFirstTokenSeconds: row.isNull(5) ? nil : row.double(5),
                modelLoadTimeSeconds: row.isNull(6) ? nil : row.double(6))
        }
    }

    /// Replaces every tool call of a message with `calls` (their `messageId` is ignored).
    public func replaceToolCalls(messageId: String, _ calls: [ToolCallRecord]) throws {
        try connection.transaction {
            try requireMessage(messageId)
            try connection.run("DELETE FROM tool_calls WHERE message_id = ?", [.text(messageId)])
            for call in calls {
                try connection.run(
                    """
                    INSERT INTO tool_calls (message_id, position, name, arguments, output, provider, status,
                        failure_reason, answer_offset, reasoning_offset)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(messageId), .integer(Int64(call.position)), .text(call.name), .text(call.argumentsJSON),
                        .text(call.output), .text(call.providerJSON), .text(call.status.rawValue),
                        .text(call.failureReason), .integer(call.answerOffset), .integer(call.reasoningOffset)
                    ])
            }
        }
    }

    /// A message's tool calls in order.
    public func toolCalls(messageId: String) throws -> [ToolCallRecord] {
        try connection.query(
            """
            SELECT message_id, position, name, arguments, output, provider, status, failure_reason, answer_offset,
                reasoning_offset
            FROM tool_calls WHERE message_id = ? ORDER BY position
            """, [.text(messageId)]
        ) { row in
            ToolCallRecord(
                messageId: row.string(0), position: row.int(1), name: row.string(2), argumentsJSON: row.string(3),
                output: row.optionalString(4), providerJSON: row.optionalString(5),
                status: ToolCallStatus(rawValue: row.string(6)) ?? .failed, failureReason: row.optionalString(7),
                answerOffset: row.optionalInt(8), reasoningOffset: row.optionalInt(9))
        }
    }

    /// Stores a file with a message, computing its SHA-256.
    @discardableResult
    public func addAttachment(messageId: String, name: String, mimeType: String, bytes: [UInt8]) throws -> Attachment {
        let attachment = Attachment(
            id: Self.newID(), messageId: messageId, name: name, mimeType: mimeType, bytes: bytes,
            sha256: Self.sha256(bytes))
        try connection.transaction {
            try requireMessage(messageId)
            try connection.run(
                "INSERT INTO attachments (id, message_id, name, mime_type, bytes, sha256) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    .text(attachment.id), .text(messageId), .text(name), .text(mimeType), .blob(bytes),
                    .text(attachment.sha256)
                ])
        }
        return attachment
    }

    /// A message's attachments in the order they were added.
    public func attachments(messageId: String) throws -> [Attachment] {
        try connection.query(
            "SELECT id, message_id, name, mime_type, bytes, sha256 FROM attachments WHERE message_id = ? ORDER BY seq",
            [.text(messageId)]
        ) { row in
            Attachment(
                id: row.string(0), messageId: row.string(1), name: row.string(2), mimeType: row.string(3),
                bytes: row.bytes(4), sha256: row.string(5))
        }
    }

    private func touch(_ conversationId: String, at date: Date) throws {
        let updated = try connection.first(
            "UPDATE conversations SET updated_at = max(updated_at, ?1), used_at = max(used_at, ?1) WHERE id = ?2 RETURNING updated_at",
            [.integer(date.milliseconds), .text(conversationId)]
        ) { $0.int64(0) }
        guard let updated else { throw LibraryError.notFound(kind: "conversation", reference: conversationId) }
        updatesWrittenHere[conversationId] = updated
    }

    private func requireMessage(_ id: String) throws {
        if try connection.first("SELECT 1 FROM messages WHERE id = ?", [.text(id)], row: { _ in true }) == nil {
            throw LibraryError.notFound(kind: "message", reference: id)
        }
    }
}
