import Library

extension ChatSession {
    /// A new conversation holding turns 1…N of `reference` (a conversation id, id prefix or title) and continuing
    /// from reply N's server context, which LM Studio keeps; N counts the replies on the current branch (nil: the
    /// last). The source is untouched. When the server no longer holds that context, the next send offers a fresh
    /// one as for any lost context.
    public func fork(_ reference: String, atReply number: Int?, title: String?) throws -> Conversation {
        let source = try resolveConversation(reference)
        return try storage {
            let replies = try library.messages(conversationId: source.id).filter {
                $0.onBranch && $0.role == .assistant
            }
            let chosen = number ?? replies.count
            guard (1...max(replies.count, 1)).contains(chosen), !replies.isEmpty else {
                throw ChatError.noSuchReply(number: chosen, count: replies.count)
            }
            return try library.forkConversation(
                id: source.id, throughReply: replies[chosen - 1].id, replyNumber: chosen, title: title)
        }
    }
}
