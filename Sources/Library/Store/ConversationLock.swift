import Foundation
import Synchronization
import SystemSupport

/// The advisory lock of one conversation while a reply to it is written, beside the library's own lock
/// (`library.sqlite3.lock` and `library.sqlite3.<conversation>.writer.lock`): one writer per conversation.
///
/// A `flock` lock belongs to an open file, so a second writer conflicts whether it is another process or another
/// send in this one; a crashed writer's lock goes with its process. The file is removed when the lock is released,
/// and a writer that locked a file removed meanwhile locks the new one instead.
public final class ConversationLock {
    private let path: String
    private let descriptor: Int32

    /// The lock files this process holds, so a refusal can say the writer is this process rather than another.
    private static let heldHere = Mutex<Set<String>>([])

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
        Self.heldHere.withLock { _ = $0.insert(path) }
    }

    deinit {
        Self.heldHere.withLock { _ = $0.remove(path) }
        // Removed while still locked, so no other writer can hold the removed file as if it were current.
        unlink(path)
        close(descriptor)
    }

    /// Takes the lock of `conversationId` in the library at `library`; nil when its directory allows no lock file
    /// (nothing can be written there either).
    ///
    /// Throws `LibraryError.conversationInUse` naming the process (pid and command) that holds it.
    static func take(library: String, conversationId: String) throws -> ConversationLock? {
        let path = lockPath(library: library, conversationId: conversationId)
        while true {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard descriptor >= 0 else { return nil }
            var held = stat()
            guard fstat(descriptor, &held) == 0, held.st_mode & S_IFMT == S_IFREG else {
                close(descriptor)
                return nil
            }
            var result: Int32
            repeat { result = flock(descriptor, LOCK_EX | LOCK_NB) } while result != 0 && errno == EINTR
            guard result == 0 else {
                close(descriptor)
                let here = heldHere.withLock { $0.contains(path) }
                throw LibraryError.conversationInUse(
                    conversationId: conversationId, inThisProcess: here,
                    holders: here ? [] : LibraryLock.holders(device: UInt64(held.st_dev), inode: UInt64(held.st_ino)))
            }
            var current = stat()
            if stat(path, &current) == 0, current.st_ino == held.st_ino, current.st_dev == held.st_dev {
                return ConversationLock(path: path, descriptor: descriptor)
            }
            close(descriptor)
        }
    }

    /// The lock file's path: the conversation id when it is a plain word, else its SHA-256 (an imported id may be anything).
    private static func lockPath(library: String, conversationId: String) -> String {
        let plain =
            conversationId.utf8.count <= 64
            && conversationId.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                    || $0 == "_"
            }
        let name = plain && !conversationId.isEmpty ? conversationId : LibraryStore.sha256(Array(conversationId.utf8))
        return library + "." + name + ".writer.lock"
    }
}

@available(*, unavailable, message: "a ConversationLock belongs to the reply that took it")
extension ConversationLock: Sendable {}

extension LibraryStore {
    /// Makes this store the only writer of `conversationId` until the returned value is released: a second
    /// writer, in this process or another, is refused with `LibraryError.conversationInUse` naming the holder.
    public func lockForWriting(conversationId: String) throws -> ConversationLock? {
        try ConversationLock.take(library: path, conversationId: conversationId)
    }
}
