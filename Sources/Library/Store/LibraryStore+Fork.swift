import Foundation

extension LibraryStore {
    /// A new conversation holding the current branch of `id` up to and including the reply `replyId` (with its
    /// reasoning, tool calls and attachments), continuing from that reply's server context; the source is untouched.
    ///
    /// The copy keeps the source's folder, model, system prompt and settings, but not its draft, pin or
    /// alternatives; `title` names it (default: the source's title followed by "(fork)"). `replyNumber` is recorded
    /// as where it came from (`forkOrigin`).
    public func forkConversation(id: String, throughReply replyId: String, replyNumber: Int, title: String?) throws
        -> Conversation
    {
        try transaction {
            guard let source = try conversation(id: id) else {
                throw LibraryError.notFound(kind: "conversation", reference: id)
            }
            var document = try document(for: source)
            let branch = document.messages.filter { $0.alternative != true }
            guard let end = branch.firstIndex(where: { $0.id == replyId && $0.role == .assistant }) else {
                throw LibraryError.notFound(kind: "reply", reference: replyId)
            }
            let now = Date().milliseconds
            document.messages = branch[...end].map { message in
                var message = message
                message.parentId = nil
                return message
            }
            document.title = title ?? (source.title.isEmpty ? "Fork" : source.title + " (fork)")
            document.pinned = false
            document.draft = ""
            document.createdAt = now
            document.updatedAt = now
            let reply = branch[end]
            document.continuation = .init(
                serverURL: reply.serverURL ?? source.serverURL, responseId: reply.responseId,
                modelInstanceId: reply.modelInstanceId, serverProfile: source.serverProfile)
            document.forkedFrom = .init(conversationId: source.id, title: source.title, reply: replyNumber)
            let (forkId, owners) = try insert(
                document, folderId: source.folderId, newIds: true, keepContinuation: true, pinOrder: nil)
            for (attachment, owner) in zip(document.messages.flatMap(\.attachments), owners) {
                try insertAttachment(
                    attachment, bytes: try attachmentBytes(id: attachment.id), messageId: owner, newId: true)
            }
            return try conversation(id: forkId)!
        }
    }

    /// Where each fork among `ids` came from, by conversation id (conversations that are no fork are left out).
    public func forkOrigins(of ids: [String]) throws -> [String: ForkOrigin] {
        let wanted = Set(ids)
        guard !wanted.isEmpty else { return [:] }
        var origins: [String: ForkOrigin] = [:]
        for (id, origin) in try connection.query(
            "SELECT conversation_id, source_id, source_title, reply_number FROM forks",
            row: {
                (
                    $0.string(0),
                    ForkOrigin(sourceId: $0.string(1), sourceTitle: $0.string(2), replyNumber: Int($0.int(3)))
                )
            }) where wanted.contains(id)
        {
            origins[id] = origin
        }
        return origins
    }

    /// Where conversation `id` was forked from; nil when it was not made by `forkConversation`.
    public func forkOrigin(of id: String) throws -> ForkOrigin? {
        try connection.first(
            "SELECT source_id, source_title, reply_number FROM forks WHERE conversation_id = ?", [.text(id)]
        ) { ForkOrigin(sourceId: $0.string(0), sourceTitle: $0.string(1), replyNumber: Int($0.int(2))) }
    }
}
