import Glibc

/// What kind of file system object a path names, read from its mode bits; its description reads in a sentence
/// ("/dev/zero is a character device").
public enum FileKind: Sendable, Equatable, CustomStringConvertible {
    case regular
    case directory
    case symlink
    case fifo
    case characterDevice
    case blockDevice
    case socket

    /// The kind `mode` (a `stat`'s `st_mode`) shows.
    public init(mode: mode_t) {
        self =
            switch mode & S_IFMT {
            case S_IFREG: .regular
            case S_IFDIR: .directory
            case S_IFLNK: .symlink
            case S_IFIFO: .fifo
            case S_IFCHR: .characterDevice
            case S_IFBLK: .blockDevice
            default: .socket
            }
    }

    /// The kind of what `path` names after following symlinks (`stat`), or the `errno` that says why it cannot be known.
    public static func of(_ path: String) -> Result<FileKind, SystemCallError> {
        var info = stat()
        guard stat(path, &info) == 0 else { return .failure(SystemCallError(call: "stat", code: errno)) }
        return .success(FileKind(mode: info.st_mode))
    }

    public var description: String {
        switch self {
        case .regular: "a regular file"
        case .directory: "a directory"
        case .symlink: "a symlink"
        case .fifo: "a FIFO (named pipe)"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .socket: "a socket"
        }
    }
}
