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

    /// Opens (creating if needed) the file at `path`; `readOnly` opens it without ever writing to it.
    ///
    /// Nothing is written yet: `prepareForWriting()` switches to WAL once the caller has checked the file
    /// is a library. A read-only file that SQLite cannot open for reading in place (WAL without a writable
    /// directory for its `-shm`) is opened as immutable.
    init(path: String, readOnly: Bool = false, busyTimeoutMilliseconds: Int32 = 5_000) throws {
        self.path = path
        if readOnly {
            let attempt = try Self.open(
                Self.uri(path, query: "mode=ro"), flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, path: path)
            if sqlite3_exec(attempt, "PRAGMA schema_version", nil, nil, nil) == SQLITE_OK {
                handle = attempt
            } else {
                sqlite3_close_v2(attempt)
                handle = try Self.open(
                    Self.uri(path, query: "immutable=1"), flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, path: path)
            }
        } else {
            handle = try Self.open(path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, path: path)
        }
        sqlite3_extended_result_codes(handle, 1)
        _ = llmster_sqlite_busy_timeout(handle, busyTimeoutMilliseconds)
        try execute("PRAGMA foreign_keys=ON")
    }

    private static func open(_ name: String, flags: Int32, path: String) throws -> OpaquePointer {
        var connection: OpaquePointer?
        let code = sqlite3_open_v2(name, &connection, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let connection else {
            let message =
                connection.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(connection)
            throw LibraryError.sqlite(code: code, message: message, sql: nil, path: path)
        }
        return connection
    }

    /// A `file:` URI for `path` with `query`, escaping what a URI would read otherwise.
    private static func uri(_ path: String, query: String) -> String {
        var escaped = ""
        for character in path.unicodeScalars {
            switch character {
            case "%", "?", "#": escaped += String(format: "%%%02X", character.value)
            default: escaped.unicodeScalars.append(character)
            }
        }
        return "file:" + escaped + "?" + query
    }

    /// Switches to WAL with `synchronous=NORMAL`, so several processes can share the file.
    func prepareForWriting() throws {
        try enableWriteAheadLog()
        try execute("PRAGMA synchronous=NORMAL")
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
        return try statement.withBindings(values) {
            while try statement.step() {}
            return Int(sqlite3_changes(handle))
        }
    }

    /// Maps every result row through `row`.
    func query<T>(_ sql: String, _ values: [SQLValue] = [], row: (SQLiteStatement) throws -> T) throws -> [T] {
        let statement = try statement(sql)
        return try statement.withBindings(values) {
            var rows: [T] = []
            while try statement.step() { rows.append(try row(statement)) }
            return rows
        }
    }

    /// The first result row mapped through `row`, or nil when there is none.
    func first<T>(_ sql: String, _ values: [SQLValue] = [], row: (SQLiteStatement) throws -> T) throws -> T? {
        let statement = try statement(sql)
        return try statement.withBindings(values) { try statement.step() ? row(statement) : nil }
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
