import Foundation

extension LibraryStore {
    /// SQLite's count of what other connections committed (`PRAGMA data_version`): it changes when another process
    /// (the REPL, `ask`, another editor's llmster) wrote to the library, never for this connection's own writes.
    public func externalChangeCount() throws -> Int {
        try connection.first("PRAGMA data_version") { $0.int(0) } ?? 0
    }

    /// The conversations in which another connection saved a message or reply after `date` (their `updated_at`; a
    /// rename or a setting change leaves it as it was), oldest change first: one whose last update is this connection's
    /// own is left out.
    public func conversationsUpdated(after date: Date) throws -> [(id: String, updatedAt: Date)] {
        try connection.query(
            "SELECT id, updated_at FROM conversations WHERE updated_at > ? ORDER BY updated_at",
            [.integer(date.stored.milliseconds)]
        ) { (id: $0.string(0), updated: $0.int64(1)) }
        .filter { updatesWrittenHere[$0.id] != $0.updated }
        .map { (id: $0.id, updatedAt: Date(milliseconds: $0.updated)) }
    }
}
