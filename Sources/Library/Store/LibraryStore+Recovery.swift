extension LibraryStore {
    /// Marks replies left `.streaming` by a process that no longer runs as `.incomplete`, keeping their text
    /// (joined with their saved pieces); returns how many.
    ///
    /// Each streaming row names its writer as "pid:start-time" (the start time from `/proc`, so a reused
    /// pid does not count as alive). Rows written by a live process — another REPL or editor on the same
    /// library, or this one — are left alone however long they have been quiet, since a model may think
    /// for minutes between updates. The library is assumed to be used from one machine. A read-only library
    /// is left as it is.
    @discardableResult
    public func recoverInterruptedReplies() throws -> Int {
        guard !isReadOnly else { return 0 }
        return try connection.transaction {
            let writers = try connection.query(
                "SELECT DISTINCT writer FROM messages WHERE status = 'streaming'"
            ) { $0.optionalString(0) }
            var recovered = 0
            for writer in writers where writer.map({ !ProcessIdentity.isAlive($0) }) ?? true {
                let replies = try connection.query(
                    "SELECT id FROM messages WHERE status = 'streaming' AND writer IS ?", [.text(writer)]
                ) { $0.string(0) }
                for reply in replies {
                    recovered += try connection.run(
                        """
                        UPDATE messages SET text = \(Self.joined("text")), reasoning = \(Self.joined("reasoning")),
                            status = 'incomplete', writer = NULL
                        WHERE id = ?
                        """, [.text(reply)])
                    try connection.run("DELETE FROM reply_pieces WHERE message_id = ?", [.text(reply)])
                }
            }
            return recovered
        }
    }
}
