import Library

/// One writer per conversation: a reply is written (its turn saved, its text streamed and saved) by one send at a
/// time, across processes, so turns, positions and parent links never interleave; within this process the sends to
/// a conversation take their turns in the order they asked, however long the one before streams.
extension ChatSession {
    /// Takes the conversation's writer turn, held until the returned value is released: the sends of this process to
    /// the conversation queue in order (first come, first served); a reply another process writes refuses it at once
    /// with `LibraryError.conversationInUse` (inside `ChatError.storage`) naming the process that answers it. A send
    /// cancelled while it waits leaves the queue and throws `CancellationError`.
    func writerLock(_ conversationId: String) async throws -> WriterTurn {
        if writingConversations.contains(conversationId) {
            // Woken by `endWriterTurn` of the send before, which hands its turn on without letting a newcomer in between.
            let waiter = WriterWaiter()
            let handedOn = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    if Task.isCancelled { return continuation.resume(returning: false) }
                    waitingWriters[conversationId, default: []].append((waiter, continuation))
                }
            } onCancel: {
                Task { await self.leaveWriterQueue(waiter, of: conversationId) }
            }
            guard handedOn else { throw CancellationError() }
        } else {
            writingConversations.insert(conversationId)
        }
        do {
            let lock = try storage { try library.lockForWriting(conversationId: conversationId) }
            return WriterTurn(lock: lock) { [weak self] in
                Task { await self?.endWriterTurn(conversationId) }
            }
        } catch {
            endWriterTurn(conversationId)
            throw error
        }
    }

    /// Hands the conversation's writer turn to the send that asked next, or frees it.
    private func endWriterTurn(_ conversationId: String) {
        if var waiting = waitingWriters[conversationId], !waiting.isEmpty {
            let next = waiting.removeFirst()
            waitingWriters[conversationId] = waiting.isEmpty ? nil : waiting
            next.continuation.resume(returning: true)
        } else {
            writingConversations.remove(conversationId)
        }
    }

    /// Takes a cancelled send out of the conversation's queue (if its turn has not come yet) and wakes it.
    private func leaveWriterQueue(_ waiter: WriterWaiter, of conversationId: String) {
        guard var waiting = waitingWriters[conversationId],
            let index = waiting.firstIndex(where: { $0.waiter === waiter })
        else { return }
        let left = waiting.remove(at: index)
        waitingWriters[conversationId] = waiting.isEmpty ? nil : waiting
        left.continuation.resume(returning: false)
    }
}

/// A send waiting for a conversation's writer turn, told apart from the others in the queue by identity.
final class WriterWaiter: Sendable {}

/// A send's turn as a conversation's writer: the library's lock across processes, and this process's queue, which the
/// next send in it takes once this is released (the lock goes first). Held on the session's actor, like the lock.
final class WriterTurn {
    private var lock: ConversationLock?
    private let end: @Sendable () -> Void

    init(lock: ConversationLock?, end: @escaping @Sendable () -> Void) {
        self.lock = lock
        self.end = end
    }

    deinit {
        lock = nil
        end()
    }
}
