import Chat
import LMStudio
import Library

/// `conversations/fork`: a new conversation from an earlier reply (`ChatSession.fork`).
enum ForkMethods {
    static func register(in registry: inout MethodRegistry) {
        registry.register("conversations/fork") { context, params in
            let reference = try params.string("conversationId")
            let reply = try params.optionalInteger("atReply")
            let fork = try await context.session.fork(
                reference, atReply: reply, title: try params.optionalString("title"))
            return try await context.session.withLibrary { library in
                .object([
                    "conversation": try LibraryMethods.json(fork, paths: try library.folderPaths()),
                    "forkedFrom": try origin(of: fork.id, in: library)
                ])
            }
        }
    }

    /// `{conversationId, title, displayTitle, reply}` of the conversation `id` was forked from, or null.
    static func origin(of id: String, in library: LibraryStore) throws -> JSONValue {
        try library.forkOrigin(of: id).map(json) ?? .null
    }

    /// `{conversationId, title, displayTitle, reply}` of `origin`: the title as stored and as every face shows it.
    static func json(_ origin: ForkOrigin) -> JSONValue {
        .object([
            "conversationId": .string(origin.sourceId), "title": .string(origin.sourceTitle),
            "displayTitle": .string(Conversation.displayTitle(of: origin.sourceTitle)),
            "reply": .number(Double(origin.replyNumber))
        ])
    }
}
