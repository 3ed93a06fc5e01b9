/// Why a `.llmster` conversation file or a library backup could not be written or read.
public enum ArchiveError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file does not start with the expected magic bytes.
    case notAnArchive(path: String, expected: String)
    /// The file was written in a format version this llmster does not know.
    case unsupportedVersion(found: Int, supported: Int)
    /// The backup is encrypted and no password was given.
    case passwordRequired
    /// Decryption failed: the password is wrong, or the archive was altered.
    case wrongPasswordOrDamaged
    /// The file ends before the archive does.
    case truncated
    /// The archive is structurally damaged; `detail` says where.
    case damaged(String)
    /// A part declares a size above the format's limit.
    case tooLarge(part: String, size: Int, limit: Int)
    /// The contents do not follow the format (a missing field, a wrong hash, a dangling reference).
    case invalid(String)
    /// This export was imported before, as the conversation `conversationId`.
    case alreadyImported(conversationId: String, title: String)
    /// Reading or writing a file failed.
    case io(path: String, reason: String)
    /// The key derivation ran out of memory or was refused by libsodium.
    case keyDerivationFailed
    /// The header asks for a key derivation of more memory than the configured ceiling allows; nothing was derived.
    case keyDerivationTooCostly(KeyDerivationLimits, ceiling: UInt64)

    /// A message fit to show the user.
    public var description: String {
        switch self {
        case .notAnArchive(let path, let expected):
            return "\(path) is not \(expected)"
        case .unsupportedVersion(let found, let supported):
            return "format version \(found) is not supported (this llmster reads version \(supported)); upgrade llmster"
        case .passwordRequired:
            return
                "the backup is encrypted: give its password with --password-file F or LLMSTER_BACKUP_PASSWORD, or run on a terminal"
        case .wrongPasswordOrDamaged:
            return "cannot decrypt the backup: the password is wrong or the file was altered"
        case .truncated:
            return "the file is truncated: it ends before the archive does"
        case .damaged(let detail):
            return "the file is damaged: \(detail)"
        case .tooLarge(let part, let size, let limit):
            return "the file is damaged or hostile: \(part) declares \(size) bytes, above the limit of \(limit)"
        case .invalid(let detail):
            return "the file does not follow the llmster format: \(detail)"
        case .alreadyImported(let conversationId, let title):
            return
                "this library already holds this conversation as \"\(title)\" (\(conversationId)); open it, or pass --as-new to import a copy"
        case .io(let path, let reason):
            return "\(path): \(reason)"
        case .keyDerivationFailed:
            return "deriving the key from the password failed (not enough memory?)"
        case .keyDerivationTooCostly(let limits, let ceiling):
            return "the backup's key derivation asks for \(limits.summary), above the ceiling of "
                + "\(KeyDerivationLimits.bytes(ceiling)) (--max-kdf-memory or max_kdf_memory); nothing was derived or changed"
        }
    }
}
