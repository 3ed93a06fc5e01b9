internal import CSodium
import Foundation

/// Password-protected (or plain, checksummed) backups of a whole library, and their atomic restore.
public enum LibraryBackup {
    /// Writes every folder, conversation, message, tool call, draft, pin and attachment of the library at `libraryPath` to `path`.
    ///
    /// Streams: one conversation's text and one attachment at a time are in memory. `password` nil writes an
    /// unencrypted archive (still checksummed). Written as `OutputFile` writes: a regular file appears only when complete.
    public static func write(
        libraryPath: String, to path: String, password: [UInt8]?, limits: KeyDerivationLimits = .moderate
    ) throws {
        let store = try LibraryStore(path: libraryPath)
        // A read transaction: the backup is one consistent snapshot while other processes keep writing.
        try store.connection.execute("BEGIN")
        defer { try? store.connection.execute("COMMIT") }
        try writeOutput(to: path) { sink in
            let writer = try ArchiveWriter(kind: .backup, sink: sink, password: password, limits: limits)
            try writer.record(
                .manifest, json: BackupManifest(format: BackupManifest.formatName, createdAt: Date().milliseconds))
            try writer.record(
                .folders,
                json: try store.folders().map {
                    FolderDocument(id: $0.id, name: $0.name, parentId: $0.parentId, position: $0.position)
                })
            let ids = try store.connection.query("SELECT id FROM conversations ORDER BY seq") { $0.string(0) }
            for id in ids {
                guard let conversation = try store.conversation(id: id) else { continue }
                var document = try store.document(for: conversation)
                document.folder = conversation.folderId.map(String.init)
                try writer.record(.conversation, json: document)
                for attachment in document.messages.flatMap(\.attachments) {
                    try writer.record(.attachment, store.attachmentBytes(id: attachment.id))
                }
            }
            try writer.finish()
        }
    }

    /// Whether the backup at `path` needs a password (reads only its header).
    public static func isEncrypted(_ path: String) throws -> Bool {
        let file = try OpenFile(reading: path)
        let start = try ByteSource(descriptor: file.descriptor, name: path).read(
            upTo: ArchiveKind.backup.magic.count + 2)
        guard start.count == ArchiveKind.backup.magic.count + 2, Array(start.prefix(8)) == ArchiveKind.backup.magic
        else {
            throw ArchiveError.notAnArchive(path: path, expected: ArchiveKind.backup.label)
        }
        return start[9] == 1
    }

    /// The key derivation an encrypted backup's header asks for, read from the header alone; nil when it is not encrypted.
    public static func keyDerivation(of path: String) throws -> KeyDerivationLimits? {
        guard try isEncrypted(path) else { return nil }
        let file = try OpenFile(reading: path)
        let saltCount = Int(crypto_pwhash_saltbytes())
        let head = try ByteSource(descriptor: file.descriptor, name: path).read(
            upTo: ArchiveKind.backup.magic.count + 2 + saltCount + 16)
        guard head.count == ArchiveKind.backup.magic.count + 2 + saltCount + 16 else { throw ArchiveError.truncated }
        let limits = head[(head.count - 16)...]
        return KeyDerivationLimits(
            operations: UInt64(bigEndian: limits.prefix(8)), memory: UInt64(bigEndian: limits.suffix(8)))
    }

    /// Throws `LibraryError.inUse`, naming the processes, while another process has the library at `libraryPath`
    /// open: a restore would replace the file under it. `PreparedRestore.commit` checks again; this is for
    /// refusing before the long checks and the question.
    public static func checkNotInUse(libraryPath: String) throws {
        try LibraryLock.exclusively(library: libraryPath) {}
    }

    /// Reads and checks the whole backup, building the library it holds beside `libraryPath` without touching it.
    ///
    /// Any failure (wrong password, truncation, tampering, invalid contents) removes what was built and throws. A key
    /// derivation asking for more than `maximumKeyDerivationMemory` bytes is refused (`ArchiveError.keyDerivationTooCostly`)
    /// before anything is derived or built.
    public static func prepareRestore(
        archive path: String, password: [UInt8]?, libraryPath: String,
        maximumKeyDerivationMemory: UInt64? = nil
    ) throws -> PreparedRestore {
        if let ceiling = maximumKeyDerivationMemory, let limits = try keyDerivation(of: path), limits.memory > ceiling {
            throw ArchiveError.keyDerivationTooCostly(limits, ceiling: ceiling)
        }
        let aside = libraryPath + ".restoring-\(UInt32.random(in: .min ... .max))"
        do {
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            let statistics = try build(aside: aside, from: path, password: password)
            return PreparedRestore(
                asidePath: aside, libraryPath: libraryPath, statistics: statistics, archiveSize: size)
        } catch {
            PreparedRestore.remove(aside)
            throw error
        }
    }

    private static func build(aside: String, from path: String, password: [UInt8]?) throws -> LibraryStatistics {
        let store = try LibraryStore(path: aside, writer: ProcessIdentity.current, locking: false)
        let file = try OpenFile(reading: path)
        let reader = try ArchiveReader(
            kind: .backup, source: ByteSource(descriptor: file.descriptor, name: path), name: path,
            password: { password })
        let limit: (RecordType) -> Int = {
            $0 == .attachment ? ArchiveFormat.maximumAttachment : ArchiveFormat.maximumJSONRecord
        }
        try store.transaction {
            guard let (type, manifestBytes) = try reader.next(limit: limit), type == .manifest else {
                throw ArchiveError.invalid("the first record must be the manifest")
            }
            let manifest = try ArchiveJSON.decode(BackupManifest.self, manifestBytes, record: "the manifest")
            guard manifest.format == BackupManifest.formatName else {
                throw ArchiveError.invalid(
                    "the manifest's format is \"\(manifest.format)\", not \"\(BackupManifest.formatName)\"")
            }
            try ArchiveNumbers.date(manifest.createdAt, field: "the manifest's createdAt")
            guard let (foldersType, foldersBytes) = try reader.next(limit: limit), foldersType == .folders else {
                throw ArchiveError.invalid("the second record must be the folder tree")
            }
            var folderIds = Set<Int64>()
            for folder in try ArchiveJSON.decode([FolderDocument].self, foldersBytes, record: "the folder tree") {
                guard folder.parentId.map(folderIds.contains) ?? true else {
                    throw ArchiveError.invalid("folder \(folder.name) refers to a missing parent \(folder.parentId!)")
                }
                guard folder.id > 0 else {
                    throw ArchiveError.invalid("folder \(folder.name) has the id \(folder.id), not a positive number")
                }
                try ArchiveNumbers.order(folder.position, field: "folder \(folder.id)'s position")
                guard !folder.name.trimmingCharacters(in: .whitespaces).isEmpty, !folder.name.contains("/"),
                    folderIds.insert(folder.id).inserted
                else { throw ArchiveError.invalid("folder \(folder.id) has an invalid or repeated name or id") }
                try store.connection.run(
                    "INSERT INTO folders (id, name, parent_id, position) VALUES (?, ?, ?, ?)",
                    [
                        .integer(folder.id), .text(folder.name), .integer(folder.parentId),
                        .integer(Int64(folder.position))
                    ])
            }
            while let (type, bytes) = try reader.next(limit: limit) {
                guard type == .conversation else {
                    throw ArchiveError.invalid("an attachment without its conversation")
                }
                let document = try ArchiveJSON.decode(ConversationDocument.self, bytes, record: "a conversation")
                try document.validate()
                let folderId = try document.folder.map { text in
                    guard let id = Int64(text), folderIds.contains(id) else {
                        throw ArchiveError.invalid("conversation \(document.id) refers to a missing folder \(text)")
                    }
                    return id
                }
                guard try store.conversation(id: document.id) == nil else {
                    throw ArchiveError.invalid("conversation id \(document.id) appears twice")
                }
                let (_, owners) = try store.insert(
                    document, folderId: folderId, newIds: false, keepContinuation: true,
                    pinOrder: document.pinned ? document.pinOrder : nil)
                for (attachment, owner) in zip(document.messages.flatMap(\.attachments), owners) {
                    guard let (type, bytes) = try reader.next(limit: { _ in attachment.size }), type == .attachment
                    else {
                        throw ArchiveError.invalid("attachment \(attachment.name) is missing")
                    }
                    try store.insertAttachment(attachment, bytes: bytes, messageId: owner, newId: false)
                }
            }
        }
        return try store.statistics()
    }
}

/// A restored library built beside the current one, waiting for the user's go-ahead.
public struct PreparedRestore: Sendable {
    /// The new library file.
    public let asidePath: String
    /// The library it will replace.
    public let libraryPath: String
    /// What the backup holds, for the preview.
    public let statistics: LibraryStatistics
    /// The archive's size in bytes.
    public let archiveSize: Int

    /// Puts the restored library in place by rename; the previous one stays beside it as `library.sqlite3.before-restore-<time>`.
    ///
    /// Returns the path of that copy, or nil when there was no previous library.
    @discardableResult
    public func commit(now: Date = Date()) throws -> String? {
        // Holding the lock exclusively: no other process has the library open while the file is swapped, and
        // one that opens it meanwhile waits, then opens the restored library.
        try LibraryLock.exclusively(library: libraryPath) {
            var kept: String?
            if FileManager.default.fileExists(atPath: libraryPath) {
                // Closed again before the rename, so closing it cannot remove the new file's `-wal` by name.
                try LibraryStore(path: libraryPath).connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = TimeZone(identifier: "UTC")
                formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
                let copy = libraryPath + ".before-restore-" + formatter.string(from: now)
                guard link(libraryPath, copy) == 0 else {
                    throw ArchiveError.io(path: copy, reason: String(cString: strerror(errno)))
                }
                kept = copy
            }
            guard rename(asidePath, libraryPath) == 0 else {
                throw ArchiveError.io(path: libraryPath, reason: String(cString: strerror(errno)))
            }
            for suffix in ["-wal", "-shm"] { unlink(libraryPath + suffix) }
            return kept
        }
    }

    /// Deletes the library built aside (the user declined).
    public func discard() {
        Self.remove(asidePath)
    }

    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }
}
