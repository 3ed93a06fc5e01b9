import Glibc

/// Reads files llmster takes whole (context items, images): regular files only, so a FIFO, a device or a socket
/// named as a file is refused at once instead of blocking on a missing writer or reading without end.
public enum RegularFile {
    /// The bytes of the regular file `path` names (symlinks followed), or nil when it holds more than `limit` bytes.
    ///
    /// The kind is checked before opening and again on the open descriptor, which is opened without blocking, so a
    /// FIFO put in the file's place in between is refused too.
    public static func read(_ path: String, limit: Int) throws(RegularFileError) -> [UInt8]? {
        switch FileKind.of(path) {
        case .failure(let error): throw RegularFileError(path: path, failure: error)
        case .success(let kind) where kind != .regular: throw .notRegular(path, kind)
        case .success: break
        }
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw RegularFileError(path: path, failure: SystemCallError(call: "open", code: errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw RegularFileError(path: path, failure: SystemCallError(call: "fstat", code: errno))
        }
        guard FileKind(mode: info.st_mode) == .regular else { throw .notRegular(path, FileKind(mode: info.st_mode)) }
        var bytes: [UInt8] = []
        while bytes.count <= limit {
            let chunk: [UInt8]
            do throws(SystemCallError) {
                chunk = try Descriptor.readSome(fd, maximum: min(1 << 16, limit + 1 - bytes.count))
            } catch {
                throw RegularFileError(path: path, failure: error)
            }
            if chunk.isEmpty { break }
            bytes += chunk
        }
        return bytes.count > limit ? nil : bytes
    }
}

/// Why a file to be read whole was refused; each case names the path and says what it is.
public enum RegularFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing is at the path (or a symlink on it leads nowhere).
    case notFound(String)
    /// The path's symlinks lead back to themselves (`ELOOP`).
    case symlinkLoop(String)
    /// The path names something other than a regular file: a directory, FIFO, device or socket.
    case notRegular(String, FileKind)
    /// Opening or reading failed; `reason` is the system's wording, such as "permission denied".
    case unreadable(String, reason: String)

    /// The case a failed `stat`, `open` or `read` of `path` comes to.
    init(path: String, failure: SystemCallError) {
        switch failure.code {
        case ENOENT, ENOTDIR: self = .notFound(path)
        case ELOOP: self = .symlinkLoop(path)
        default: self = .unreadable(path, reason: failure.reason.prefix(1).lowercased() + failure.reason.dropFirst())
        }
    }

    public var description: String {
        switch self {
        case .notFound(let path): "\(path) does not exist"
        case .symlinkLoop(let path): "\(path) is a symlink loop: its links never reach a file"
        case .notRegular(let path, let kind): "\(path) is \(kind), not a regular file"
        case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
        }
    }
}
