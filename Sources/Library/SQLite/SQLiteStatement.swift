internal import CSQLite
import Glibc

/// A prepared statement owned by its `SQLiteConnection`; finalized in `deinit`.
final class SQLiteStatement {
    /// The statement's text, for error messages.
    let sql: String
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection

    /// Texts of at least this many UTF-8 bytes are bound in place instead of copied.
    static let inPlaceTextLength = 4 << 10

    /// Prepares `sql` on `connection`, marked persistent since it is cached.
    init(connection: SQLiteConnection, sql: String) throws {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw connection.error(code, sql: sql)
        }
        self.sql = sql
        self.handle = statement
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds `values` to parameters 1…n and runs `body` (which steps the statement and reads its rows) while they are
    /// bound; the statement is reset and its bindings cleared before the values' storage goes out of scope, so a cached
    /// statement holds nothing between uses.
    ///
    /// A long text (a reply can be as large as the reply itself) and every blob are bound in place, not copied: each is
    /// bound inside its own `withCString` / `withUnsafeBytes` scope and `body` runs innermost, the pattern of GRDB's
    /// `withBinding(to:at:do:)`. A text is handed over NUL-terminated, so SQLite never copies it to terminate it (as
    /// `substr` and the search index would); a text holding a NUL of its own is copied.
    func withBindings<T>(_ values: [SQLValue], _ body: () throws -> T) throws -> T {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        return try bind(values[...], at: 1, body)
    }

    private func bind<T>(_ values: ArraySlice<SQLValue>, at index: Int32, _ body: () throws -> T) throws -> T {
        guard let value = values.first else {
            defer {
                sqlite3_reset(handle)
                sqlite3_clear_bindings(handle)
            }
            return try body()
        }
        let rest = values.dropFirst()
        switch value {
        case .integer(let number): try check(sqlite3_bind_int64(handle, index, number))
        case .real(let number): try check(sqlite3_bind_double(handle, index, number))
        case .text(let string) where string.utf8.count >= Self.inPlaceTextLength:
            let length = string.utf8.count
            return try string.withCString { text in
                if strlen(text) == length {
                    try check(sqlite3_bind_text(handle, index, text, -1, nil))
                } else {
                    try check(
                        sqlite3_bind_text(handle, index, text, Int32(clamping: length), llmster_sqlite_transient()))
                }
                return try bind(rest, at: index + 1, body)
            }
        case .text(let string): try check(sqlite3_bind_text(handle, index, string, -1, llmster_sqlite_transient()))
        case .blob(let bytes) where bytes.isEmpty: try check(sqlite3_bind_zeroblob(handle, index, 0))
        case .blob(let bytes):
            return try bytes.withUnsafeBytes { buffer in
                try check(sqlite3_bind_blob(handle, index, buffer.baseAddress, Int32(clamping: buffer.count), nil))
                return try bind(rest, at: index + 1, body)
            }
        case .null: try check(sqlite3_bind_null(handle, index))
        }
        return try bind(rest, at: index + 1, body)
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else { throw connection.error(code, sql: sql) }
    }

    /// Advances to the next row; false when the statement is done.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let failure = connection.error(code, sql: sql)
            sqlite3_reset(handle)
            throw failure
        }
    }

    // Column readers: `column` is 0-based; NULL reads as 0, "" or [] unless the reader is optional.

    /// The column as a 64-bit integer.
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    /// The column as an `Int`.
    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }
    /// The column as a `Double`.
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    /// Whether the column is a non-zero integer.
    func bool(_ column: Int32) -> Bool { sqlite3_column_int64(handle, column) != 0 }
    /// Whether the column is NULL.
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// The column as UTF-8 text (invalid sequences repaired).
    func string(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The column as a blob.
    func bytes(_ column: Int32) -> [UInt8] {
        guard let blob = sqlite3_column_blob(handle, column) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, column))
        return Array(UnsafeRawBufferPointer(start: blob, count: count))
    }

    /// The column as a 64-bit integer, or nil when NULL.
    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
    /// The column as an `Int`, or nil when NULL.
    func optionalInt(_ column: Int32) -> Int? { isNull(column) ? nil : int(column) }
    /// The column as text, or nil when NULL.
    func optionalString(_ column: Int32) -> String? { isNull(column) ? nil : string(column) }
}
