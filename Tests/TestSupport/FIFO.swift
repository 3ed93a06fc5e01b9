import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A FIFO made with `mkfifo`, held open for reading without blocking: a writer's `open` does not wait for a reader,
/// and what it writes (up to 1 MiB) waits in the pipe until `drain()`, so a test needs no reader thread and cannot
/// hang when nothing writes.
public final class FIFO: Sendable {
    public let path: String
    private let reader: Int32

    /// Makes the FIFO at `path` and opens its reading end.
    public init(_ path: String) throws {
        guard mkfifo(path, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        self.path = path
        reader = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard reader >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        _ = fcntl(reader, 1031, 1 << 20)  // F_SETPIPE_SZ (Linux), which the Glibc module does not export
    }

    deinit { close(reader) }

    /// Everything written so far.
    public func drain() -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
            guard count > 0 else { return bytes }
            bytes += buffer[..<count]
        }
    }

    /// Whether `path` is still a FIFO (not replaced by a regular file).
    public var isStillAFIFO: Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO
    }
}
