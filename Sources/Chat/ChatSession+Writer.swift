import Library

/// One writer per conversation: a reply is written (its turn saved, its text streamed and saved) by one send at a
/// time, across processes, so turns, positions and parent links never interleave.
extension ChatSession {
    /// Takes the conversation's writer lock, held until the returned value is released; a second send to a
    /// conversation being answered (here or in another process) is refused with `LibraryError.conversationInUse`
    /// (inside `ChatError.storage`), naming the process that answers it.
    func writerLock(_ conversationId: String) throws -> ConversationLock? {
        try storage { try library.lockForWriting(conversationId: conversationId) }
    }
}
