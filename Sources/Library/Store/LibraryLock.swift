import Foundation
import Synchronization
import SystemSupport

/// The advisory lock beside a library (`library.sqlite3.lock`): every process with the library open holds it shared;
/// a restore needs it exclusively, so it cannot swap the file under another process's streaming reply.
///
/// `flock` locks belong to an open file, so one process keeps one descriptor per lock file, counted across its
/// stores: a process never conflicts with itself (the REPL and `rpc` refuse a restore while their own replies run).
final class LibraryLock {
    /// The lock file.
    let path: String
    private let key: FileKey

    private struct FileKey: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    private struct Entry {
        var descriptor: Int32
        var holders: Int
    }

    private static let open = Mutex<[FileKey: Entry]>([:])

    /// Takes the shared lock on `path`, waiting while a restore holds it exclusively; nil when the lock file can
    /// neither be created nor opened (a read-only directory: nothing can be restored there either).
    static func shared(_ path: String) -> LibraryLock? {
        var descriptor = Foundation.open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if descriptor < 0 { descriptor = Foundation.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            return nil
        }
        let key = FileKey(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        let fresh = Self.open.withLock { table -> Bool in
            if var entry = table[key] {
                entry.holders += 1
                table[key] = entry
                return false
            }
            table[key] = Entry(descriptor: descriptor, holders: 1)
            return true
        }
        if fresh {
            while flock(descriptor, LOCK_SH) != 0, errno == EINTR {}
        } else {
            close(descriptor)
        }
        return LibraryLock(path: path, key: key)
    }

    private init(path: String, key: FileKey) {
        self.path = path
        self.key = key
    }

    deinit {
        Self.open.withLock { table in
            guard var entry = table[key] else { return }
            entry.holders -= 1
            if entry.holders == 0 {
                close(entry.descriptor)
                table[key] = nil
            } else {
                table[key] = entry
            }
        }
    }

    /// Runs `body` holding the lock of the library at `library` exclusively (without a lock when the directory
    /// allows none: nothing can be replaced there either). A library not made yet is locked too, so a process that
    /// makes it meanwhile waits for the restore instead of writing to a file about to be replaced.
    ///
    /// Throws `LibraryError.inUse` naming the other processes (pid and command) when any holds the library.
    static func exclusively<T>(library: String, _ body: () throws -> T) throws -> T {
        guard let lock = shared(library + ".lock") else { return try body() }
        return try lock.exclusively(library: library, body)
    }

    /// How long a holder is given to let go before a restore is refused: a process ending (`llmster list`), or a
    /// child started by another that holds a copy of its descriptor until it runs its own program.
    private static let releaseGrace = Duration.seconds(1)

    /// Runs `body` holding the lock exclusively, then returns to shared.
    ///
    /// Throws `LibraryError.inUse` naming the other processes (pid and command) when any holds the library.
    private func exclusively<T>(library: String, _ body: () throws -> T) throws -> T {
        let descriptor = Self.open.withLock { $0[key]?.descriptor } ?? -1
        let deadline = ContinuousClock.now + Self.releaseGrace
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            // A failed conversion has already dropped the shared lock: take it back.
            flock(descriptor, LOCK_SH)
            guard ContinuousClock.now < deadline else {
                throw LibraryError.inUse(path: library, holders: Self.holders(device: key.device, inode: key.inode))
            }
            usleep(20_000)
        }
        defer { flock(descriptor, LOCK_SH) }
        return try body()
    }

    /// "pid (command)" for each other process holding a lock on the file with this device and inode, from `/proc/locks`.
    static func holders(device: UInt64, inode: UInt64) -> [String] {
        let pids = lockingProcesses(in: locksTable(), device: device, inode: inode).filter { $0 != getpid() }
        return pids.map { pid in
            let bytes = procFile("/proc/\(pid)/cmdline")
            let words = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            let command = words.enumerated().map {
                $0.offset == 0 ? ($0.element as NSString).lastPathComponent : $0.element
            }
            .joined(separator: " ")
            let shown = command.count > 60 ? command.prefix(59) + "…" : Substring(command)
            return shown.isEmpty ? "\(pid)" : "\(pid) (\(shown))"
        }
    }

    /// The text of `/proc/locks`, read to its end (its size reads as 0, and it outgrows a page while many locks are held).
    static func locksTable() -> String { String(decoding: procFile("/proc/locks"), as: UTF8.self) }

    /// The processes `table` (the text of `/proc/locks`) lists as holding an `flock` on the file with
    /// this device and inode, each once. The kernel writes a file as "MAJOR:MINOR:INODE", the device numbers in hex;
    /// an inode alone would also match files of other file systems.
    static func lockingProcesses(in table: String, device: UInt64, inode: UInt64) -> [Int32] {
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        var pids: [Int32] = []
        for line in table.split(separator: "\n") {
            // "1: FLOCK  ADVISORY  READ  1234 00:2a:5678 0 EOF"; waiting requests have "->" after the number.
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "FLOCK", let pid = Int32(fields[4]) else { continue }
            let file = fields[5].split(separator: ":")
            guard file.count == 3, UInt64(file[0], radix: 16) == major, UInt64(file[1], radix: 16) == minor,
                UInt64(file[2]) == inode, !pids.contains(pid)
            else { continue }
            pids.append(pid)
        }
        return pids
    }
}

/// The whole of a `/proc` file (whose size reads as 0, so it is read to the end), or nothing when it cannot be read.
private func procFile(_ path: String) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return [] }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    while bytes.count < 4 << 20, let chunk = try? Descriptor.readSome(descriptor, maximum: 1 << 16), !chunk.isEmpty {
        bytes += chunk
    }
    return bytes
}

@available(*, unavailable, message: "a LibraryLock belongs to the store that took it")
extension LibraryLock: Sendable {}
