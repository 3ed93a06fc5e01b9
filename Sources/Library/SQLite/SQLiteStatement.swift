internal import CSQLite
import Glibc

/// A prepared statement owned by its `SQLiteConnection`; finalized in `deinit`.
final class SQLiteStatement {
    /// The statement's text, for error messages.
    let sql: String
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection
    /// Long texts bound without a copy, kept alive (and so at the same address) until `finish()`.
    private var boundTexts: [String] = []

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

    /// Binds `values` to parameters 1…n after resetting any previous run.
    ///
    /// A long text (a reply can be as large as the reply itself) is bound in place, not copied: the statement keeps
    /// the string, whose native storage does not move while it lives, until `finish()` or the next `bind`.
    func bind(_ values: [SQLValue]) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        boundTexts.removeAll()
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case let .integer(number): code = sqlite3_bind_int64(handle, index, number)
            case let .real(number): code = sqlite3_bind_double(handle, index, number)
            case var .text(string) where string.utf8.count >= Self.inPlaceTextLength:
                string.makeContiguousUTF8()
                boundTexts.append(string)
                // Bound by its NUL terminator (native strings have one), so SQLite knows the text is terminated
                // and never copies it to terminate it (as `substr` and the search index would); a text holding
                // a NUL of its own is copied.
                let inPlace: Int32?? = string.utf8.withContiguousStorageIfAvailable { utf8 -> Int32? in
                    guard memchr(utf8.baseAddress!, 0, utf8.count) == nil else { return nil }
                    return sqlite3_bind_text(handle, index, UnsafeRawPointer(utf8.baseAddress!).assumingMemoryBound(to: CChar.self), -1, nil)
                }
                code = inPlace.flatMap { $0 }
                    ?? sqlite3_bind_text(handle, index, string, Int32(clamping: string.utf8.count), llmster_sqlite_transient())
            case let .text(string): code = sqlite3_bind_text(handle, index, string, -1, llmster_sqlite_transient())
            case let .blob(bytes):
                if bytes.isEmpty {
                    code = sqlite3_bind_zeroblob(handle, index, 0)
                } else {
                    code = bytes.withUnsafeBytes {
                        sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), llmster_sqlite_transient())
                    }
                }
            case .null: code = sqlite3_bind_null(handle, index)
            }
            guard code == SQLITE_OK else { throw connection.error(code, sql: sql) }
        }
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

    /// Releases the statement's read snapshot and bound text so a cached statement holds nothing between uses.
    func finish() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        boundTexts.removeAll()
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
