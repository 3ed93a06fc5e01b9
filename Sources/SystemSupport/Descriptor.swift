import Glibc

/// Whole-buffer reads and writes on raw file descriptors, retrying short transfers and EINTR.
public enum Descriptor {
    /// Writes every byte of `bytes` to `fd`.
    ///
    /// With `suppressingSIGPIPE` the bytes go out with `send(…, MSG_NOSIGNAL)` (sockets only), so a peer that went away
    /// yields `EPIPE` instead of killing the process.
    public static func writeAll(
        _ fd: Int32, _ bytes: UnsafeRawBufferPointer,
        suppressingSIGPIPE: Bool = false
    ) throws(SystemCallError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written =
                suppressingSIGPIPE
                ? send(fd, base + offset, bytes.count - offset, noSignalFlag)
                : write(fd, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw SystemCallError(call: suppressingSIGPIPE ? "send" : "write", code: errno)
            }
            offset += written
        }
    }

    /// Writes every byte of `bytes` to `fd`; see `writeAll(_:_:suppressingSIGPIPE:)`.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8], suppressingSIGPIPE: Bool = false) throws(SystemCallError)
    {
        let failure: SystemCallError? = bytes.withUnsafeBytes { buffer in
            do throws(SystemCallError) {
                try writeAll(fd, buffer, suppressingSIGPIPE: suppressingSIGPIPE)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Reads what is available from `fd`, at most `maximum` bytes, retrying EINTR; empty at the end of the input.
    public static func readSome(_ fd: Int32, maximum: Int) throws(SystemCallError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemCallError(call: "read", code: errno)
            }
            buffer.removeSubrange(count...)
            return buffer
        }
    }

    /// A pipe whose two ends are closed on exec, so a spawned program gets only the ends it is handed.
    public static func pipe() throws(SystemCallError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard Glibc.pipe(&fds) == 0 else { throw SystemCallError(call: "pipe", code: errno) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }

    private static let noSignalFlag = Int32(MSG_NOSIGNAL)
}

/// A system call that failed, with its `errno`.
public struct SystemCallError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call's name, such as `write`.
    public let call: String
    /// The `errno` it left.
    public let code: Int32

    /// Records a failed `call`.
    public init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    /// The system's wording of `code`, such as "Broken pipe".
    public var reason: String { String(cString: strerror(code)) }

    public var description: String { "\(call): \(reason)" }
}
