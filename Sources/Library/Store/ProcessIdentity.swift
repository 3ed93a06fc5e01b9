import Foundation

/// Names a running process as "pid:start-time", so a reused pid is not mistaken for the process that wrote a row.
enum ProcessIdentity {
    /// This process.
    static let current: String = identity(of: getpid()) ?? "\(getpid())"

    /// Whether the process `identity` names is still running on this machine (a zombie counts as gone).
    static func isAlive(_ identity: String) -> Bool {
        guard let pid = identity.split(separator: ":").first.flatMap({ pid_t($0) }), pid > 0 else { return false }
        if kill(pid, 0) != 0, errno == ESRCH { return false }
        guard let status = status(of: pid) else { return true }
        if status.state == "Z" { return false }
        return !identity.contains(":") || "\(pid):\(status.startTime)" == identity
    }

    /// The identity of the running process `pid`, or nil without `/proc`.
    static func identity(of pid: pid_t) -> String? {
        status(of: pid).map { "\(pid):\($0.startTime)" }
    }

    /// Fields 3 (state) and 22 (start time in clock ticks since boot) of `/proc/<pid>/stat`.
    private static func status(of pid: pid_t) -> (state: Substring, startTime: Substring)? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19 else { return nil }
        return (fields[0], fields[19])
    }
}
