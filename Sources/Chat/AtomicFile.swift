import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes files the crash-safe way: a temporary file beside the target, flushed, then renamed over it.
public enum AtomicFile {
    /// Replaces `path` with `bytes`, creating parent directories (0700) and the file with `permissions`.
    public static func write(_ bytes: [UInt8], to path: String, permissions: mode_t = 0o644) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard fd >= 0 else { throw AtomicFileError(path: path, operation: "create", code: errno) }
        var failure: AtomicFileError?
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = AtomicFileError(path: path, operation: "write", code: errno)
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = AtomicFileError(path: path, operation: "flush", code: errno) }
        close(fd)
        if failure == nil, rename(temporary, path) != 0 { failure = AtomicFileError(path: path, operation: "replace", code: errno) }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }
}

/// A file that could not be written; the previous version, if any, is untouched.
public struct AtomicFileError: Error, CustomStringConvertible {
    public let path: String
    public let operation: String
    public let code: Int32

    public var description: String {
        let reason = String(cString: strerror(code))
        let advice = code == ENOSPC ? " Free some disk space and try again." : ""
        return "could not \(operation) \(path): \(reason). The previous file is unchanged.\(advice)"
    }
}

private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(fd, buffer, count)
    #else
    Darwin.write(fd, buffer, count)
    #endif
}
