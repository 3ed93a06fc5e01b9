extension LibraryStore {
    /// Marks replies left `.streaming` by a process that no longer runs as `.incomplete`, keeping their text;
    /// returns how many.
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
                "SELECT DISTINCT writer FROM messages WHERE status = 'streaming'") { $0.optionalString(0) }
            var recovered = 0
            for writer in writers where writer.map({ !ProcessIdentity.isAlive($0) }) ?? true {
                recovered += try connection.run(
                    "UPDATE messages SET status = 'incomplete', writer = NULL WHERE status = 'streaming' AND writer IS ?",
                    [.text(writer)])
            }
            return recovered
        }
    }
}
