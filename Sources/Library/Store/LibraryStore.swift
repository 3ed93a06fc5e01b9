internal import CSodium
import Foundation
import SystemSupport

/// The local library: folders, conversations, messages, tool calls, attachments and search, in one SQLite file.
///
/// Not `Sendable`: use one store per thread or actor. Several stores (in one process or several) may
/// share a file; writes wait for each other up to the busy timeout instead of failing.
public final class LibraryStore {
    /// The file this store reads and writes.
    public let path: String
    /// The store's only connection; every call runs on it.
    let connection: SQLiteConnection
    /// Identifies this process in `messages.writer` while it streams a reply; see `recoverInterruptedReplies()`.
    let writer: String
    /// The `updated_at` this connection last gave each conversation, so a change another process made can be told from
    /// this process's own (`conversationsUpdated(after:)`).
    var updatesWrittenHere: [String: Int64] = [:]

    /// Opens the library at `path`, creating it (directories 0700, file 0600) and migrating its schema as needed.
    public convenience init(path: String) throws {
        try self.init(path: path, writer: ProcessIdentity.current)
    }

    /// The shared hold on `library.sqlite3.lock` that keeps a restore in another process from replacing the file.
    private let lock: LibraryLock?

    /// Opens the library acting as the process `writer` names (tests use it to stand in for another process).
    ///
    /// `locking` false is for a library no other process knows of yet (a restore building its new file).
    init(path: String, writer: String, locking: Bool = true) throws {
        self.path = path
        try Self.prepareFile(at: path)
        isReadOnly = !Self.isWritable(path)
        // Taken before SQLite opens the file: after waiting out a restore, this store opens the restored library.
        let lockExisted = FileManager.default.fileExists(atPath: path + ".lock")
        lock = locking ? LibraryLock.shared(path + ".lock") : nil
        connection = try SQLiteConnection(path: path, readOnly: isReadOnly)
        self.writer = writer
        // Identified before anything is written, so another program's database is never switched to WAL
        // (and gets no lock file beside it).
        do { try Schema.identify(connection) } catch {
            if locking, !lockExisted { unlink(path + ".lock") }
            throw error
        }
        if isReadOnly {
            try Schema.requireCurrent(connection)
        } else {
            try connection.prepareForWriting()
            try Schema.migrate(connection)
        }
    }

    /// Whether the library was opened read-only (its file has no write permission, or its directory or file
    /// system cannot be written): it can be listed, shown and exported; every change throws `LibraryError.readOnly`.
    public let isReadOnly: Bool

    /// Runs `body` as one write transaction: every store call inside it commits together or not at all.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try connection.transaction(body)
    }

    /// Counts for a preview of the whole library.
    public func statistics() throws -> LibraryStatistics {
        let sql = """
            SELECT (SELECT count(*) FROM folders), (SELECT count(*) FROM conversations),
                   (SELECT count(*) FROM messages), (SELECT count(*) FROM attachments),
                   (SELECT ifnull(sum(length(bytes)), 0) FROM attachments),
                   (SELECT count(*) FROM conversations WHERE pinned),
                   (SELECT count(*) FROM conversations WHERE draft <> ''),
                   (SELECT min(created_at) FROM conversations), (SELECT max(updated_at) FROM conversations)
            """
        return try connection.first(sql) { row in
            LibraryStatistics(
                folders: row.int(0), conversations: row.int(1), messages: row.int(2), attachments: row.int(3),
                attachmentBytes: row.int(4), pinned: row.int(5), drafts: row.int(6),
                oldest: row.optionalInt64(7).map(Date.init(milliseconds:)),
                newest: row.optionalInt64(8).map(Date.init(milliseconds:)))
        }!
    }

    /// Whether this process may write the library file and create its `-wal` and `-shm` beside it; a file
    /// without any write permission bit counts as read-only even for root, who could write it anyway.
    private static func isWritable(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & 0o222 != 0, access(path, W_OK) == 0 else { return false }
        let directory = (path as NSString).deletingLastPathComponent
        return access(directory.isEmpty ? "." : directory, W_OK) == 0
    }

    private static func prepareFile(at path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        do {
            if !directory.isEmpty { try Directory.create(directory) }
        } catch {
            throw LibraryError.cannotCreate(path: directory, reason: error.reason)
        }
        // Created in place with O_EXCL, never by writing a temporary file and renaming it (as
        // FileManager.createFile does): a rename could replace a file that another process has just
        // opened, leaving two connections on different files that share one `-wal` and `-shm`.
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 {
            close(fd)
        } else if errno != EEXIST {
            throw LibraryError.cannotCreate(path: path, reason: String(cString: strerror(errno)))
        }
        // A device such as /dev/null, a directory or a FIFO is never opened: SQLite would create a
        // world-writable `-journal` beside it.
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw LibraryError.notALibrary(path: path, reason: "it is not a regular file")
        }
    }

    /// A new random id: 16 lowercase hex digits.
    static func newID() -> String {
        let value = UInt64.random(in: .min ... .max)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Lowercase hex SHA-256 of `bytes`, computed by libsodium.
    static func sha256(_ bytes: [UInt8]) -> String {
        precondition(sodiumReady, "libsodium failed to initialise")
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        _ = crypto_hash_sha256(&digest, bytes, UInt64(bytes.count))
        return digest.map { String(format: "%02x", $0) }.joined()
    }

    private static let sodiumReady: Bool = sodium_init() >= 0
}

@available(*, unavailable, message: "a LibraryStore owns a SQLite connection; open one per thread or actor")
extension LibraryStore: Sendable {}

extension Date {
    /// The milliseconds since 1970 the library stores: the years 1 to 9999. Files with dates outside are refused.
    static let storableMilliseconds: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

    /// The library stores whole milliseconds; dates are rounded on the way in so records compare equal after a round trip.
    ///
    /// A value outside `storableMilliseconds` (a row an older llmster imported from a crafted file) is clamped
    /// into it, so such a library can still be read, exported and backed up.
    init(milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(Self.storableMilliseconds.clamp(milliseconds)) / 1000)
    }

    /// Milliseconds since 1970, as stored: clamped to `storableMilliseconds`, never trapping (a NaN date reads as the lowest).
    var milliseconds: Int64 {
        Self.storableMilliseconds.clamp(Int64(Int(saturating: (timeIntervalSince1970 * 1000).rounded())))
    }

    /// This date rounded to what the library stores.
    var stored: Date { Date(milliseconds: milliseconds) }
}

extension ClosedRange where Bound == Int64 {
    /// `value`, or the nearer bound when it lies outside.
    func clamp(_ value: Int64) -> Int64 { Swift.min(Swift.max(value, lowerBound), upperBound) }
}
