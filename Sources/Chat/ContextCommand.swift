import Foundation
import SystemSupport
#if canImport(Glibc)
import Glibc
#endif

/// Runs a shell command and keeps its output (standard output and standard error together) as a context item.
///
/// Standard input is `/dev/null`. Output beyond the item limit is cut, and the item says so (`cutFrom`, in its
/// chip and in the heading the model reads); a command still writing at 16 times the limit is stopped with SIGTERM.
public enum ContextCommand {
    /// Runs `command` with `/bin/sh -c` and returns its output and exit status (128 + N after signal N).
    public static func run(_ command: String, limits: ContextLimits) throws(ContextError) -> ContextItem {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw .command(command, reason: String(cString: strerror(errno))) }
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { if input >= 0 { close(input) } }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        let process: SpawnedProcess
        do {
            process = try SpawnedProcess(program: "/bin/sh", arguments: ["-c", command],
                                         standardInput: input >= 0 ? input : nil, standardOutput: fds[1], standardError: fds[1])
        } catch {
            close(fds[0])
            close(fds[1])
            throw .command(command, reason: error.description)
        }
        close(fds[1])
        defer { close(fds[0]) }
        var kept: [UInt8] = []
        var total = 0
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            total += count
            if kept.count < limits.item { kept += buffer[0..<min(count, limits.item - kept.count)] }
            if total > limits.item * 16 {
                process.signal(SIGTERM)
                break
            }
        }
        let status: Int32 = switch process.wait() {
        case .exited(let code): code
        case .signalled(let number): 128 + number
        }
        if kept.contains(0) { throw .binary("the output of \(command)") }
        // A cut in the middle of a character drops that character's first bytes.
        var text = String(decoding: kept, as: UTF8.self)
        if total == kept.count, String(validating: kept, as: UTF8.self) == nil { throw .notUTF8("the output of \(command)") }
        if text.hasSuffix("\u{FFFD}"), total > kept.count { text.removeLast() }
        return ContextItem(name: command, source: .command(exitStatus: status), text: text, cutFrom: total > kept.count ? total : nil)
    }
}
