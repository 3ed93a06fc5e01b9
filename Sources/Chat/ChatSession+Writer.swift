import Library

/// One writer per conversation: a reply is written (its turn saved, its text streamed and saved) by one send at a
/// time, across processes, so turns, positions and parent links never interleave.
extension ChatSession {
    /// How long a send waits for a reply of this process to the same conversation to end (a cancelled reply still
    /// saving what arrived, as when an editor cancels and sends again at once) before it is refused.
    static let writerWait: Duration = .seconds(10)

    /// Takes the conversation's writer lock, held until the returned value is released. A reply another process
    /// writes is refused at once, and one this process writes after `writerWait`, with
    /// `LibraryError.conversationInUse` (inside `ChatError.storage`) naming the process that answers it.
    func writerLock(_ conversationId: String) async throws -> ConversationLock? {
        let deadline = ContinuousClock.now + Self.writerWait
        while true {
            do {
                return try storage { try library.lockForWriting(conversationId: conversationId) }
            } catch ChatError.storage(.conversationInUse(_, inThisProcess: true, _)) where ContinuousClock.now < deadline {
                // Released when that reply's send returns, which the actor runs between these checks.
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }
}
