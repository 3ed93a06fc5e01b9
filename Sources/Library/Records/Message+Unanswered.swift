/// Which of a branch's user messages got no reply (the one rule every face shows them by).
///
/// Older llmster versions saved a message whose send failed before any reply (no server, a refused request) or
/// was not made (a question declined) and left it there: the next message on its branch is another user message,
/// or there is none. System messages are not turns and are passed over.
extension Message {
    /// The ids of the unanswered user messages in `branch`, a current branch in order as
    /// `LibraryStore.messages(conversationId:)` gives it.
    public static func unansweredIds(in branch: [Message]) -> Set<String> {
        var unanswered: Set<String> = []
        var waiting: String?
        for message in branch {
            switch message.role {
            case .user:
                if let waiting { unanswered.insert(waiting) }
                waiting = message.id
            case .assistant:
                waiting = nil
            case .system:
                continue
            }
        }
        if let waiting { unanswered.insert(waiting) }
        return unanswered
    }
}
