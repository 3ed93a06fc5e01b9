internal import CSQLite

/// One SQLite connection with a statement cache; confined to the thread that uses it, closed in `deinit`.
///
/// Opened in WAL mode with `foreign_keys=ON`, `synchronous=NORMAL` and a busy timeout, so several
/// processes can share one file: writers queue for the lock instead of failing with "database is locked".
final class SQLiteConnection {
    /// The `sqlite3*`.
    let handle: OpaquePointer
    /// The database file, for error messages.
    let path: String
    private var cache: [String: SQLiteStatement] = [:]
    private var transactionDepth = 0

    /// Opens (creating if needed) and configures the file at `path`.
    init(path: String, busyTimeoutMilliseconds: Int32 = 5_000) throws {
        var connection: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(connection)
            throw LibraryError.sqlite(code: code, message: message, sql: nil, path: path)
        }
        self.handle = connection
        self.path = path
        sqlite3_extended_result_codes(connection, 1)
        _ = llmster_sqlite_busy_timeout(connection, busyTimeoutMilliseconds)
        try enableWriteAheadLog()
        try execute("PRAGMA synchronous=NORMAL")
        try execute("PRAGMA foreign_keys=ON")
    }

    /// Switches the file to WAL, retrying when another connection converts the same new file at the same moment
    /// (the loser sees a transient I/O error about the rollback journal the winner deleted).
    private func enableWriteAheadLog() throws {
        var attempt = 1
        while true {
            do {
                _ = try first("PRAGMA journal_mode=WAL") { $0.string(0) }
                return
            } catch {
                let mode = try first("PRAGMA journal_mode") { $0.string(0) }
                if mode == "wal" { return }
                if attempt == 5 { throw error }
                attempt += 1
            }
        }
    }

    deinit {
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// The connection's latest error as a `LibraryError` naming `sql` and the file.
    func error(_ code: Int32, sql: String?) -> LibraryError {
        .sqlite(code: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql, path: path)
    }

    /// Runs one or more statements that take no parameters and return no rows of interest.
    func execute(_ sql: String) throws {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code, sql: sql) }
    }

    /// The cached prepared statement for `sql`, prepared on first use.
    func statement(_ sql: String) throws -> SQLiteStatement {
        if let cached = cache[sql] { return cached }
        let statement = try SQLiteStatement(connection: self, sql: sql)
        cache[sql] = statement
        return statement
    }

    /// Runs a statement that returns no rows; returns the number of rows it changed.
    @discardableResult
    func run(_ sql: String, _ values: [SQLValue] = []) throws -> Int {
        let statement = try statement(sql)
        try statement.bind(values)
        defer { statement.finish() }
        while try statement.step() {}
        return Int(sqlite3_changes(handle))
    }

    /// Maps every result row through `row`.
    func query<T>(_ sql: String, _ values: [SQLValue] = [], row: (SQLiteStatement) throws -> T) throws -> [T] {
        let statement = try statement(sql)
        try statement.bind(values)
        defer { statement.finish() }
        var rows: [T] = []
        while try statement.step() { rows.append(try row(statement)) }
        return rows
    }

    /// The first result row mapped through `row`, or nil when there is none.
    func first<T>(_ sql: String, _ values: [SQLValue] = [], row: (SQLiteStatement) throws -> T) throws -> T? {
        let statement = try statement(sql)
        try statement.bind(values)
        defer { statement.finish() }
        return try statement.step() ? row(statement) : nil
    }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`, so the lock is taken up front and waits
    /// for other writers); nested calls join the outer transaction, so one failure rolls back all of it.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        if transactionDepth > 0 {
            transactionDepth += 1
            defer { transactionDepth -= 1 }
            return try body()
        }
        try run("BEGIN IMMEDIATE")
        transactionDepth = 1
        defer { transactionDepth = 0 }
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            if sqlite3_get_autocommit(handle) == 0 { _ = try? run("ROLLBACK") }
            throw error
        }
    }

    /// The rowid of the last row inserted through this connection.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
}
