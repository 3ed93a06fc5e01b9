import Foundation
import Library

/// What another process changed in the library, for a face that shows a conversation while others write to it.
public struct LibraryWatch: Sendable, Equatable {
    /// SQLite's count of other connections' commits when last looked at.
    var changeCount: Int?
    /// The newest update time already reported.
    var seenUpdates: Date

    /// A watch that reports changes made from now on.
    public init(from date: Date = Date()) {
        seenUpdates = date
    }
}

extension ChatSession {
    /// The conversations another process changed since `watch` looked (none when nothing else committed), with their
    /// update times, and the watch to look with next. The first look only notes where the library stands.
    public func conversationsChangedElsewhere(since watch: LibraryWatch) throws -> (
        LibraryWatch, [(id: String, updatedAt: Date)]
    ) {
        var next = watch
        let count = try storage { try library.externalChangeCount() }
        next.changeCount = count
        guard let previous = watch.changeCount, previous != count else { return (next, []) }
        let changed = try storage { try library.conversationsUpdated(after: watch.seenUpdates) }
        if let newest = changed.last?.updatedAt { next.seenUpdates = newest }
        return (next, changed)
    }

    /// Takes back the conversation's last exchange, as an editor's undo of a send does: waits for the conversation's
    /// running send to end (cancel it first), then removes the user message `messageId` names (or whose reply it names)
    /// and its replies; the conversation continues from the exchange before. When `messageId` is the reply of this
    /// session's last answer asked again, only that reply goes; when the exchange was its last edit, the edit goes.
    /// Either way what it replaced is current again, as the editor's undo shows it. Returns the current branch.
    public func withdrawLastExchange(_ messageId: String, in conversationId: String) async throws -> [Message] {
        let writing = try await writerLock(conversationId)
        defer { withExtendedLifetime(writing) {} }
        let replaced = replacedTurns.removeValue(forKey: conversationId)
        return try storage {
            try library.transaction {
                func restore(_ replaced: ReplacedTurn) throws -> [Message] {
                    let current = try library.chooseAlternative(messageId: replaced.shown)
                    try Self.restoreContinuation(of: replaced.continuation, in: library)
                    return current
                }
                if let replaced, case .retry(let turnId) = replaced.by,
                    let reply = try library.message(id: messageId), reply.role == .assistant, reply.parentId == turnId
                {
                    try library.removeReply(conversationId: conversationId, messageId: messageId)
                    return try restore(replaced)
                }
                let branch = try library.withdrawLastExchange(conversationId: conversationId, messageId: messageId)
                guard let replaced, case .edit(let parentId) = replaced.by, branch.last?.id == parentId else {
                    return branch
                }
                return try restore(replaced)
            }
        }
    }
}
