import Foundation

/// A temporary home for one test: XDG directories, a library path and an environment that points at them.
public final class Sandbox: Sendable {
    public let root: String

    /// Creates the directories.
    public init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("llmster-test-\(UUID().uuidString)").path
        for sub in ["config", "data", "state", "home"] {
            try FileManager.default.createDirectory(atPath: root + "/" + sub, withIntermediateDirectories: true)
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// The library file llmster uses in this sandbox.
    public var libraryPath: String { root + "/data/llmster/library.sqlite3" }

    /// An environment with the sandbox's XDG directories, `server` as `LLMSTER_SERVER`, no token, no colour preferences.
    public func environment(server: String, extra: [String: String] = [:]) -> [String: String] {
        var environment = [
            "HOME": root + "/home", "XDG_CONFIG_HOME": root + "/config", "XDG_DATA_HOME": root + "/data",
            "XDG_STATE_HOME": root + "/state", "LLMSTER_SERVER": server,
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "LANG": "C.UTF-8", "TERM": "xterm-256color"
        ]
        environment.merge(extra) { $1 }
        return environment
    }

    /// Writes a file under the sandbox root with the given permissions.
    public func write(_ text: String, to relativePath: String, permissions: Int = 0o600) throws {
        let path = root + "/" + relativePath
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(
            atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: permissions])
    }
}
