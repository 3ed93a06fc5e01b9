import Foundation

extension LibraryStore {
    /// The archived form of a conversation; attachment bytes are read separately, one at a time.
    func document(for conversation: Conversation) throws -> ConversationDocument {
        var messages: [MessageDocument] = []
        let every = try connection.query(
            "SELECT \(Self.messageColumns) FROM messages WHERE conversation_id = ? ORDER BY position",
            [.text(conversation.id)], row: Self.message)
        for message in every {
            let calls = try toolCalls(messageId: message.id).map {
                ToolCallDocument(
                    name: $0.name, arguments: $0.argumentsJSON, output: $0.output, provider: $0.providerJSON,
                    status: $0.status, failureReason: $0.failureReason, answerOffset: $0.answerOffset,
                    reasoningOffset: $0.reasoningOffset)
            }
            let attachments = try connection.query(
                "SELECT id, name, mime_type, length(bytes), sha256 FROM attachments WHERE message_id = ? ORDER BY seq",
                [.text(message.id)]
            ) { row in
                AttachmentDocument(
                    id: row.string(0), name: row.string(1), mimeType: row.string(2), size: row.int(3),
                    sha256: row.string(4))
            }
            messages.append(
                MessageDocument(
                    id: message.id, role: message.role, text: message.text, reasoning: message.reasoning,
                    status: message.status, error: message.error, stats: message.statsJSON,
                    modelInstanceId: message.modelInstanceId, responseId: message.responseId,
                    createdAt: message.createdAt.milliseconds, updatedAt: message.updatedAt.milliseconds,
                    toolCalls: calls, attachments: attachments, parentId: message.parentId,
                    alternative: message.onBranch ? nil : true, parentResponseId: message.parentResponseId,
                    serverURL: message.serverURL))
        }
        let lastInstance = messages.last {
            $0.alternative != true && $0.role == .assistant && $0.modelInstanceId != nil
        }?.modelInstanceId
        return ConversationDocument(
            id: conversation.id, title: conversation.title, folder: try conversation.folderId.map(folderPath(id:)),
            pinned: conversation.pinned, pinOrder: conversation.pinOrder,
            createdAt: conversation.createdAt.milliseconds, updatedAt: conversation.updatedAt.milliseconds,
            draft: conversation.draft,
            configuration: .init(
                modelKey: conversation.modelKey, systemPrompt: conversation.systemPrompt,
                settings: conversation.settings),
            continuation: .init(
                serverURL: conversation.serverURL, responseId: conversation.lastResponseId,
                modelInstanceId: lastInstance,
                serverProfile: conversation.serverProfile),
            messages: messages,
            forkedFrom: try forkOrigin(of: conversation.id).map {
                .init(conversationId: $0.sourceId, title: $0.sourceTitle, reply: $0.replyNumber)
            })
    }

    /// One attachment's bytes.
    func attachmentBytes(id: String) throws -> [UInt8] {
        try connection.first("SELECT bytes FROM attachments WHERE id = ?", [.text(id)]) { $0.bytes(0) } ?? []
    }

    /// Inserts a conversation and its messages and tool calls as archived; returns the message id for each attachment in order.
    ///
    /// `newIds` gives the conversation and its messages fresh ids (an import); otherwise they are kept (a restore).
    func insert(
        _ document: ConversationDocument, folderId: Int64?, newIds: Bool, keepContinuation: Bool, pinOrder: Int?
    ) throws -> (conversationId: String, attachmentOwners: [String]) {
        let conversationId = newIds ? Self.newID() : document.id
        try insertConversation(
            Conversation(
                id: conversationId, title: document.title, folderId: folderId, pinned: document.pinned,
                pinOrder: pinOrder, createdAt: Date(milliseconds: document.createdAt),
                updatedAt: Date(milliseconds: document.updatedAt), modelKey: document.configuration.modelKey,
                systemPrompt: document.configuration.systemPrompt, settings: document.configuration.settings,
                serverURL: keepContinuation ? document.continuation.serverURL : nil,
                lastResponseId: keepContinuation ? document.continuation.responseId : nil, draft: document.draft,
                serverProfile: keepContinuation ? document.continuation.serverProfile : nil))
        if let origin = document.forkedFrom {
            try connection.run(
                "INSERT INTO forks (conversation_id, source_id, source_title, reply_number) VALUES (?, ?, ?, ?)",
                [
                    .text(conversationId), .text(origin.conversationId), .text(origin.title),
                    .integer(Int64(origin.reply))
                ])
        }
        var owners: [String] = []
        // A file from before branches has no parent ids: its messages follow each other.
        let linear = !document.messages.contains { $0.parentId != nil || $0.alternative == true }
        var newIdsByOld: [String: String] = [:]
        var previous: String?
        for (position, message) in document.messages.enumerated() {
            let messageId = newIds ? Self.newID() : message.id
            newIdsByOld[message.id] = messageId
            let parentId = linear ? previous : message.parentId.flatMap { newIdsByOld[$0] }
            previous = messageId
            try connection.run(
                """
                INSERT INTO messages (id, conversation_id, position, role, text, reasoning, status, error, stats,
                    model_instance_id, response_id, created_at, updated_at, writer, parent_id, on_branch,
                    parent_response_id, server_url)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?)
                """,
                [
                    .text(messageId), .text(conversationId), .integer(Int64(position)), .text(message.role.rawValue),
                    .text(message.text), .text(message.reasoning),
                    .text(message.status == .streaming ? MessageStatus.incomplete.rawValue : message.status.rawValue),
                    .text(message.error), .text(message.stats), .text(message.modelInstanceId),
                    .text(message.responseId), .integer(message.createdAt), .integer(message.updatedAt),
                    .text(parentId), .integer(message.alternative == true ? 0 : 1), .text(message.parentResponseId),
                    .text(message.serverURL.map(ServerAddress.withoutUserinfo))
                ])
            for (index, call) in message.toolCalls.enumerated() {
                try connection.run(
                    """
                    INSERT INTO tool_calls (message_id, position, name, arguments, output, provider, status, failure_reason,
                        answer_offset, reasoning_offset)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(messageId), .integer(Int64(index)), .text(call.name), .text(call.arguments),
                        .text(call.output), .text(call.provider), .text(call.status.rawValue),
                        .text(call.failureReason),
                        .integer(call.answerOffset), .integer(call.reasoningOffset)
                    ])
            }
            owners += Array(repeating: messageId, count: message.attachments.count)
        }
        return (conversationId, owners)
    }

    /// Stores archived attachment bytes after checking them against their description.
    func insertAttachment(_ attachment: AttachmentDocument, bytes: [UInt8], messageId: String, newId: Bool) throws {
        guard bytes.count == attachment.size else {
            throw ArchiveError.invalid(
                "attachment \(attachment.name) has \(bytes.count) bytes, not the \(attachment.size) declared")
        }
        guard Self.sha256(bytes) == attachment.sha256 else {
            throw ArchiveError.invalid("attachment \(attachment.name): the SHA-256 does not match its bytes")
        }
        try connection.run(
            "INSERT INTO attachments (id, message_id, name, mime_type, bytes, sha256) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(newId ? Self.newID() : attachment.id), .text(messageId), .text(attachment.name),
                .text(attachment.mimeType), .blob(bytes), .text(attachment.sha256)
            ])
    }
}
