import Foundation
import Glibc

/// A file the user named for llmster to write (an export, a backup, a saved transcript), and how it is written.
///
/// A regular file or a new path is replaced atomically (`AtomicFile`), so no reader sees half of it. A symlink is
/// followed: its final target is replaced atomically and the link stays a link. A FIFO, a device, a socket, or a
/// path through `/proc` such as `/dev/stdout` or `/dev/fd/3` is opened and written in place, never replaced.
public struct OutputFile: Sendable, Equatable, CustomStringConvertible {
    /// How the bytes reach the file.
    public enum Method: Sendable, Equatable {
        /// A temporary file beside this path (the named one, or a symlink's final target) is renamed over it.
        case replace(String)
        /// The named path is opened and written; this is what it is.
        case inPlace(FileKind)
        /// The path names this process's own descriptor (`/dev/stdout`, `/proc/self/fd/N`), written as it is.
        case descriptor(Int32)
    }

    /// The path as named.
    public let path: String
    /// How it is written.
    public let method: Method
    /// Whether a regular file is there now, that writing replaces.
    public let replacesAFile: Bool

    /// Looks at what `path` names, following symlinks, and settles how to write it.
    public init(_ path: String) throws(OutputFileError) {
        self.path = path
        var current = path
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0 else {
                guard errno == ENOENT else {
                    throw OutputFileError(path: path, problem: SystemCallError(call: "lstat", code: errno).reason)
                }
                (method, replacesAFile) = (.replace(current), false)
                return
            }
            let kind = FileKind(mode: info.st_mode)
            switch kind {
            case .regular:
                (method, replacesAFile) = (.replace(current), true)
                return
            case .directory:
                throw OutputFileError(path: path, problem: "it is a directory; name a file")
            case .symlink:
                let directory = (current as NSString).deletingLastPathComponent
                let resolved =
                    directory.isEmpty ? FileManager.default.currentDirectoryPath : Self.realDirectory(directory)
                if resolved.hasPrefix("/proc/") {
                    (method, replacesAFile) = (try Self.inPlace(path, ownDescriptors: resolved, name: current), false)
                    return
                }
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else {
                    throw OutputFileError(path: path, problem: "its symlink \(current) cannot be read")
                }
                current = target.hasPrefix("/") ? target : resolved + "/" + target
            case .fifo, .characterDevice, .blockDevice, .socket:
                (method, replacesAFile) = (.inPlace(kind), false)
                return
            }
        }
        throw OutputFileError(path: path, problem: "it is a symlink loop: its links never reach a file")
    }

    /// Writes what `body` writes to the descriptor it is given (not to be closed by `body`); a new file gets `permissions`.
    ///
    /// Errors of `body` pass through unchanged; a replaced file's steps fail with `AtomicFileError`, an in-place
    /// file's opening with `OutputFileError`.
    public func write(permissions: mode_t = 0o600, _ body: (Int32) throws -> Void) throws {
        switch method {
        case .replace(let target):
            try AtomicFile.write(to: target, permissions: permissions, body)
        case .descriptor(let fd):
            try body(fd)
        case .inPlace(let kind):
            // Opened without waiting, so a FIFO nobody reads is refused at once instead of blocking until one does.
            let fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else {
                if errno == ENXIO, kind == .fifo {
                    throw OutputFileError(
                        path: path, problem: "no program is reading this FIFO; start its reader first")
                }
                throw OutputFileError(
                    path: path,
                    problem:
                        "it is \(kind) that cannot be opened for writing (\(SystemCallError(call: "open", code: errno).reason))"
                )
            }
            defer { close(fd) }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
            try body(fd)
        }
    }

    /// Writes `bytes`; see `write(permissions:_:)`.
    public func write(_ bytes: [UInt8], permissions: mode_t = 0o600) throws {
        try write(permissions: permissions) { fd in
            do throws(SystemCallError) { try Descriptor.writeAll(fd, bytes) } catch {
                throw OutputFileError(path: path, problem: error.reason)
            }
        }
    }

    /// The path, and for a symlink its target or for an in-place file what it is: "notes.md",
    /// "notes.md → /home/me/dotfiles/notes.md", "/dev/stdout (standard output, written in place)".
    public var description: String {
        switch method {
        case .replace(let target): target == path ? path : "\(path) → \(target)"
        case .inPlace(let kind): "\(path) (\(kind), written in place)"
        case .descriptor(let fd):
            "\(path) (\([0: "standard input", 1: "standard output", 2: "standard error"][fd] ?? "descriptor \(fd)"), written in place)"
        }
    }

    /// `directory` with its symlinks resolved, or itself when it cannot be.
    private static func realDirectory(_ directory: String) -> String {
        guard let resolved = realpath(directory, nil) else { return directory }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// How to write `name` in the `/proc` directory `directory`: a descriptor this process was started with (what the
    /// shell opened: `/dev/stdout`, `3>file`) as it is; anything else opened in place as what it leads to. A descriptor
    /// llmster opened itself (the library, its locks: all close-on-exec) is refused, never written.
    private static func inPlace(_ path: String, ownDescriptors directory: String, name: String) throws(OutputFileError)
        -> Method
    {
        if directory == realDirectory("/proc/self/fd"), let fd = Int32((name as NSString).lastPathComponent) {
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0 {
                guard flags & FD_CLOEXEC == 0 else {
                    throw OutputFileError(
                        path: path,
                        problem: "it names a descriptor llmster opened itself; name a file, or one the shell opened")
                }
                return .descriptor(fd)
            }
        }
        var info = stat()
        return .inPlace(stat(path, &info) == 0 ? FileKind(mode: info.st_mode) : .symlink)
    }
}

/// An output file that cannot be written as named; nothing was written.
public struct OutputFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The path as named.
    public let path: String
    /// What is wrong with it.
    public let problem: String

    /// Records `problem` with `path`.
    public init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }

    public var description: String { "cannot write \(path): \(problem)" }
}
