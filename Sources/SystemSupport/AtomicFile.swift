import Foundation
import Glibc

/// Writes files the crash-safe way: a temporary file beside the target, flushed, then renamed over it.
///
/// A failure leaves the previous file untouched and no temporary file behind.
public enum AtomicFile {
    /// Replaces `path` with `bytes`, creating parent directories (0700) and the file with `permissions`.
    public static func write(_ bytes: [UInt8], to path: String, permissions: mode_t = 0o644) throws {
        try write(to: path, permissions: permissions) { fd in
            do throws(SystemCallError) { try Descriptor.writeAll(fd, bytes) } catch {
                throw AtomicFileError(path: path, operation: "write", code: error.code)
            }
        }
    }

    /// Replaces `path` with what `body` writes to the descriptor it is given (not to be closed by `body`).
    ///
    /// Parent directories are created 0700 and the file with `permissions`. Errors of `body` pass through unchanged;
    /// the file's own steps fail with `AtomicFileError`.
    public static func write(to path: String, permissions: mode_t = 0o644, _ body: (Int32) throws -> Void) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do throws(SystemCallError) { try Directory.create(directory) } catch {
                throw AtomicFileError(path: path, operation: "create the directory of", code: error.code)
            }
        }
        let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard fd >= 0 else { throw AtomicFileError(path: path, operation: "create", code: errno) }
        do {
            defer { close(fd) }
            try body(fd)
            guard fsync(fd) == 0 else { throw AtomicFileError(path: path, operation: "flush", code: errno) }
            guard rename(temporary, path) == 0 else {
                throw AtomicFileError(path: path, operation: "replace", code: errno)
            }
        } catch {
            unlink(temporary)
            throw error
        }
    }
}

/// A file that could not be written; the previous version, if any, is untouched.
public struct AtomicFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file that was to be written.
    public let path: String
    /// The step that failed: `create`, `write`, `flush`, `replace` or `create the directory of`.
    public let operation: String
    /// The `errno` of the failed step.
    public let code: Int32

    /// Records the failed `operation` on `path`.
    public init(path: String, operation: String, code: Int32) {
        self.path = path
        self.operation = operation
        self.code = code
    }

    /// The system's wording of `code`.
    public var reason: String { String(cString: strerror(code)) }

    public var description: String {
        let advice = code == ENOSPC ? " Free some disk space and try again." : ""
        return "could not \(operation) \(path): \(reason). The previous file is unchanged.\(advice)"
    }
}

/// Directories llmster creates for its own files.
public enum Directory {
    /// Creates `path` and any missing parents with `permissions` (0700: private to the user); existing ones are kept as they are.
    public static func create(_ path: String, permissions: mode_t = 0o700) throws(SystemCallError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { return }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path { try create(parent, permissions: permissions) }
        if mkdir(path, permissions) != 0, errno != EEXIST { throw SystemCallError(call: "mkdir", code: errno) }
    }
}
