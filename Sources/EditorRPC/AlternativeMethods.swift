import Chat
import LMStudio
import Library

/// `conversations/alternatives` and `conversations/chooseAlternative`: the replaced answers and edited turns
/// that regenerate (`chat/send {retry: true}`) and edit (`chat/send {edit: true}`) keep.
enum AlternativeMethods {
    static func register(in registry: inout MethodRegistry) {
        registry.register("conversations/alternatives") { context, params in
            let reference = try params.string("conversationId")
            let messageId = try params.optionalString("messageId")
            let conversationId = try await context.session.resolveConversation(reference).id
            let alternatives = try await context.session.alternatives(in: conversationId, messageId: messageId)
            let current = alternatives.firstIndex { $0.onBranch }
            return .object([
                "alternatives": .array(try await json(alternatives, context)),
                "current": current.map { .number(Double($0)) } ?? .null
            ])
        }
        registry.register("conversations/chooseAlternative") { context, params in
            let messageId = try params.string("messageId")
            let branch = try await context.session.chooseAlternative(messageId)
            return .object([
                "conversationId": branch.first.map { .string($0.conversationId) } ?? .null,
                "messages": .array(try await json(branch, context))
            ])
        }
    }

    /// The messages as `conversations/get` gives them.
    private static func json(_ messages: [Message], _ context: RequestContext) async throws -> [JSONValue] {
        try await context.session.withLibrary { library in
            try messages.map { try LibraryMethods.messageJSON($0, toolCalls: try library.toolCalls(messageId: $0.id)) }
        }
    }
}
