import Foundation

extension LibraryStore {
    /// Keeps a reply as it streamed before its final save replaces it: its text, reasoning and tool calls as saved so
    /// far are copied, inside the library (never through memory), into a new alternative of the reply, which
    /// records it as its `streamedVersionId`. Returns the alternative's id.
    ///
    /// The alternative takes the reply's place in the order of alternatives and the reply moves after it, so the reply
    /// stays the newest (the one `chooseAlternative` continues with) and the streamed version reads as the earlier one.
    /// The alternative is complete and off the current branch.
    @discardableResult
    public func keepStreamedVersion(of messageId: String) throws -> String {
        let copy = Self.newID()
        let now = Date().milliseconds
        try connection.transaction {
            guard let reply = try message(id: messageId) else {
                throw LibraryError.notFound(kind: "message", reference: messageId)
            }
            let last =
                try connection.first(
                    "SELECT max(position) FROM messages WHERE conversation_id = ?", [.text(reply.conversationId)]
                ) { $0.int(0) } ?? reply.position
            try connection.run(
                """
                INSERT INTO messages (id, conversation_id, position, role, text, reasoning, status, error, stats,
                    model_instance_id, response_id, created_at, updated_at, writer, parent_id, on_branch,
                    parent_response_id, server_url, rewritten)
                SELECT ?, conversation_id, ?, role, text, reasoning, 'streaming', NULL, stats, model_instance_id,
                    response_id, created_at, ?, NULL, parent_id, 0, parent_response_id, server_url, 0
                FROM messages WHERE id = ?
                """, [.text(copy), .integer(Int64(last + 1)), .integer(now), .text(messageId)])
            try connection.run(
                "INSERT INTO reply_pieces (message_id, text, reasoning) SELECT ?, text, reasoning FROM reply_pieces WHERE message_id = ? ORDER BY seq",
                [.text(copy), .text(messageId)])
            try connection.run(
                """
                INSERT INTO tool_calls (message_id, position, name, arguments, output, provider, status, failure_reason,
                    answer_offset, reasoning_offset)
                SELECT ?, position, name, arguments, output, provider, status, failure_reason, answer_offset, reasoning_offset
                FROM tool_calls WHERE message_id = ?
                """, [.text(copy), .text(messageId)])
            try moveAnswerStartIntoMessage(copy)
            // Indexed for search once it is no longer streaming, as any reply.
            try connection.run("UPDATE messages SET status = 'complete' WHERE id = ?", [.text(copy)])
            try connection.run(
                "UPDATE messages SET position = ? WHERE id = ?", [.integer(Int64(-1 - last)), .text(messageId)])
            try connection.run(
                "UPDATE messages SET position = ? WHERE id = ?", [.integer(Int64(reply.position)), .text(copy)])
            try connection.run(
                "UPDATE messages SET position = ?, streamed_version_id = ? WHERE id = ?",
                [.integer(Int64(last + 1)), .text(copy), .text(messageId)])
        }
        return copy
    }
}
