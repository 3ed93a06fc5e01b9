import Foundation
import SystemSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a shell command and keeps its output (standard output and standard error together) as a context item.
///
/// Standard input is `/dev/null`; the environment is llmster's without its credentials. The command leads a process
/// group of its own, and the whole group is killed when the shell exits (a background child holding the output open
/// does not keep llmster reading), when it is stopped, and when it runs past its timeout. Output beyond the item limit
/// is cut, and the item says so (`cutFrom`, in its chip and in the heading the model reads); a command still writing
/// at 16 times the limit is stopped with SIGTERM.
public enum ContextCommand {
    /// Runs `command` with `/bin/sh -c` and returns its output and exit status (128 + N after signal N).
    ///
    /// Throws `commandStopped` once `stop` is requested and `commandTimedOut` after `timeout` seconds; the group is
    /// killed and nothing is kept then.
    public static func run(_ command: String, limits: ContextLimits, timeout: Double, stop: StopRequest)
        throws(ContextError) -> ContextItem
    {
        guard !stop.isRequested else { throw .commandStopped(command) }
        let output: (read: Int32, write: Int32)
        let ended: (read: Int32, write: Int32)
        do {
            output = try Descriptor.pipe()
            ended = try Descriptor.pipe()
        } catch {
            throw .command(command, reason: error.reason)
        }
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer {
            for fd in [input, output.read, ended.read, ended.write] where fd >= 0 { close(fd) }
        }
        let process: SpawnedProcess
        do {
            defer { close(output.write) }
            process = try SpawnedProcess(
                program: "/bin/sh", arguments: ["-c", command], standardInput: input >= 0 ? input : nil,
                standardOutput: output.write, standardError: output.write, ownProcessGroup: true)
        } catch {
            throw .command(command, reason: error.description)
        }
        // The shell's end, seen without reaping it, so its group id is still its own when the group is killed.
        Thread {
            process.waitUntilEnded()
            process.signalGroup(SIGKILL)
            var byte: UInt8 = 1
            _ = write(ended.write, &byte, 1)
        }.start()
        var reading = Reading(limits: limits)
        let stopped = reading.collect(
            from: output.read, until: ended.read, stop: stop, deadline: Deadline(seconds: timeout)
        ) {
            process.signalGroup($0)
        }
        // The watcher's byte: the shell has ended and the group was killed (its descriptors may be closed now).
        var byte: UInt8 = 0
        while read(ended.read, &byte, 1) < 0, errno == EINTR {}
        let status: Int32 =
            switch process.wait() {
            case .exited(let code): code
            case .signalled(let number): 128 + number
            }
        switch stopped {
        case .requested: throw .commandStopped(command)
        case .timedOut: throw .commandTimedOut(command, seconds: timeout)
        case nil: break
        }
        return try reading.item(command: command, exitStatus: status)
    }

    /// Why reading ended before the command did.
    private enum Stop {
        case requested
        case timedOut
    }

    /// A point on the monotonic clock, `seconds` from now.
    private struct Deadline {
        private let end: Double

        init(seconds: Double) { end = Self.now() + seconds }

        /// Milliseconds left for `poll`, rounded up so the wait does not end early; 0 once passed.
        var milliseconds: Int32 {
            let left = ((end - Self.now()) * 1000).rounded(.up)
            return left > 0 ? Int32(min(left, Double(Int32.max))) : 0
        }

        private static func now() -> Double {
            var time = timespec()
            clock_gettime(CLOCK_MONOTONIC, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
    }

    /// The output read so far: the first `limits.item` bytes and the count of all of them.
    private struct Reading {
        let limits: ContextLimits
        var kept: [UInt8] = []
        var total = 0

        /// Reads `fd` until the shell ends (`ended` turns readable; what is in the pipe then is kept), the output ends
        /// and the shell with it, `stop` is requested or `deadline` passes; `signal` reaches the command's group. Returns
        /// why it stopped early, nil when the shell ended.
        mutating func collect(
            from fd: Int32, until ended: Int32, stop: StopRequest, deadline: Deadline,
            signal: (Int32) -> Void
        ) -> Stop? {
            var readable = true
            while true {
                var fds = [
                    pollfd(fd: readable ? fd : -1, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: ended, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: stop.descriptor, events: Int16(POLLIN), revents: 0)
                ]
                let ready = poll(&fds, nfds_t(fds.count), deadline.milliseconds)
                if ready < 0, errno == EINTR { continue }
                if fds[1].revents != 0 {
                    if readable {
                        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                        while take(from: fd) {}
                    }
                    return nil
                }
                let stopped: Stop? = fds[2].revents != 0 ? .requested : deadline.milliseconds == 0 ? .timedOut : nil
                if let stopped {
                    signal(SIGKILL)
                    return stopped
                }
                if fds[0].revents != 0, !take(from: fd) {
                    readable = false
                }
                if readable, total > limits.item * 16 {
                    signal(SIGTERM)
                    readable = false
                }
            }
        }

        /// Reads one chunk of `fd`; false at its end (or when nothing more is there to read).
        private mutating func take(from fd: Int32) -> Bool {
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { return true }
            guard count > 0 else { return false }
            total += count
            if kept.count < limits.item { kept += buffer[0..<min(count, limits.item - kept.count)] }
            return true
        }

        /// The item for `command`'s output.
        func item(command: String, exitStatus: Int32) throws(ContextError) -> ContextItem {
            if kept.contains(0) { throw .binary("the output of \(command)") }
            // A cut in the middle of a character drops that character's first bytes.
            var text = String(decoding: kept, as: UTF8.self)
            if total == kept.count, String(validating: kept, as: UTF8.self) == nil {
                throw .notUTF8("the output of \(command)")
            }
            if text.hasSuffix("\u{FFFD}"), total > kept.count { text.removeLast() }
            return ContextItem(
                name: command, source: .command(exitStatus: exitStatus), text: text,
                cutFrom: total > kept.count ? total : nil)
        }
    }
}
