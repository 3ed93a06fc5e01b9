import Foundation
import Glibc
import SystemSupport

/// Watches processes a command under test started: their ids, told through a FIFO, and whether they ended.
public enum ChildProbe {
    /// Makes a FIFO at `path` for a command to write a process id into (`echo $$ > PATH`).
    public static func makeFIFO(_ path: String) throws {
        guard mkfifo(path, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// The process id a command wrote into the FIFO at `path`, waiting at most `seconds` for it.
    public static func pid(fromFIFO path: String, seconds: Double = 30) async throws -> pid_t {
        try await BlockingThread.run("fifo-read") { try blockingPid(fromFIFO: path, seconds: seconds) }
    }

    private static func blockingPid(fromFIFO path: String, seconds: Double) throws -> pid_t {
        // Opened without waiting for a writer; until one comes and writes, poll reports nothing.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var text = ""
        let deadline = Date().addingTimeInterval(seconds)
        while !text.contains("\n") {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            guard poll(&ready, 1, left) > 0 else {
                throw ProbeError("no process id arrived in \(path) within \(seconds) s")
            }
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = read(fd, &buffer, buffer.count)
            if count > 0 { text += String(decoding: buffer[..<count], as: UTF8.self) }
        }
        guard let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ProbeError("not a process id: \(text)")
        }
        return pid
    }

    /// Waits at most `seconds` for process `pid` to end (a zombie has ended); whether it did.
    public static func waitForEnd(of pid: pid_t, seconds: Double = 30) async -> Bool {
        await BlockingThread.run("pid-wait") { blockingWaitForEnd(of: pid, seconds: seconds) }
    }

    /// `waitForEnd` on the calling thread, for a `deinit`, which cannot wait otherwise.
    public static func blockingWaitForEnd(of pid: pid_t, seconds: Double = 30) -> Bool {
        guard let pidfdOpen else { return kill(pid, 0) != 0 }
        let fd = pidfdOpen(pid, 0)
        guard fd >= 0 else { return errno == ESRCH }
        defer { close(fd) }
        // A pidfd turns readable when its process ends.
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let result = poll(&ready, 1, Int32(seconds * 1000))
            if result < 0, errno == EINTR { continue }
            return result > 0
        }
    }

    /// glibc's `pidfd_open` (2.36 and later), which Swift's Glibc module does not import; nil where the C library lacks it.
    private static let pidfdOpen: (@convention(c) (pid_t, UInt32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pidfd_open") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (pid_t, UInt32) -> Int32).self)
    }()
}

/// A watched process did not do what the test waited for.
public struct ProbeError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
