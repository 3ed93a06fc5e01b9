import Foundation
import SystemSupport

/// Runs a program in the foreground on the terminal.
enum ExternalProgram {
    /// Runs `/bin/sh -c SCRIPT sh ARGUMENTS…` and waits; returns its exit status (-1 when it could not start or a signal ended it).
    ///
    /// The REPL ignores SIGINT, SIGTERM and SIGHUP while it traps them; the program gets the defaults back.
    static func runShell(_ script: String, arguments: [String]) -> Int32 {
        TerminalFocus.shared.suspended {
            guard let process = try? SpawnedProcess(program: "/bin/sh", arguments: ["-c", script, "sh"] + arguments)
            else { return -1 }
            guard case .exited(let status) = process.wait() else { return -1 }
            return status
        }
    }

    /// Whether `program` is an executable file in a directory of `environment`'s `PATH`.
    static func isAvailable(_ program: String, environment: [String: String]) -> Bool {
        (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(program)")
        }
    }

    /// Runs `program ARGUMENTS…` with `text` on its standard input (output discarded) and waits; whether it succeeded.
    static func feed(_ text: String, to program: String, arguments: [String]) -> Bool {
        var ends: [Int32] = [0, 0]
        // A socket pair rather than a pipe: a program that exits without reading cannot kill the REPL with SIGPIPE.
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else { return false }
        let null = open("/dev/null", O_WRONLY)
        defer { if null >= 0 { close(null) } }
        guard
            let process = try? SpawnedProcess(
                program: program, arguments: arguments, standardInput: ends[1],
                standardOutput: null, standardError: null)
        else {
            close(ends[0])
            close(ends[1])
            return false
        }
        close(ends[1])
        let written = (try? Descriptor.writeAll(ends[0], Array(text.utf8), suppressingSIGPIPE: true)) != nil
        close(ends[0])
        return process.wait().succeeded && written
    }
}
