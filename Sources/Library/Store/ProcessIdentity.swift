import Foundation

/// Names a running process as "pid:start-time", so a reused pid is not mistaken for the process that wrote a row.
enum ProcessIdentity {
    /// This process.
    static let current: String = identity(of: getpid()) ?? "\(getpid())"

    /// Whether the process `identity` names is still running on this machine.
    static func isAlive(_ identity: String) -> Bool {
        guard let pid = identity.split(separator: ":").first.flatMap({ pid_t($0) }), pid > 0 else { return false }
        if kill(pid, 0) != 0, errno == ESRCH { return false }
        guard let now = self.identity(of: pid) else { return true }
        return now == identity || !identity.contains(":")
    }

    /// The process's start time in clock ticks since boot (field 22 of `/proc/<pid>/stat`), or nil without `/proc`.
    static func identity(of pid: pid_t) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19 else { return nil }
        return "\(pid):\(fields[19])"
    }
}
