import Glibc

/// Where llmster keeps its files, following the XDG base directories of one environment.
///
/// One rule for every directory: an `XDG_*_HOME` variable that is unset, empty or relative is ignored in favour of
/// its default under the home directory; the home directory is `HOME`, or the user's passwd entry when `HOME` is
/// unset or empty. Computed once from the environment `main` reads and passed down; nothing here reads the process
/// environment.
public struct Paths: Sendable, Equatable {
    /// llmster's configuration directory, `$XDG_CONFIG_HOME/llmster` (default `~/.config/llmster`).
    public var configDirectory: String
    /// llmster's data directory, `$XDG_DATA_HOME/llmster` (default `~/.local/share/llmster`).
    public var dataDirectory: String
    /// llmster's state directory, `$XDG_STATE_HOME/llmster` (default `~/.local/state/llmster`).
    public var stateDirectory: String
    /// llmster's cache directory, `$XDG_CACHE_HOME/llmster` (default `~/.cache/llmster`).
    public var cacheDirectory: String

    /// The directories for `environment`.
    public init(environment: [String: String]) {
        let home = Self.home(environment: environment)
        func directory(_ variable: String, _ fallback: String) -> String {
            let base = environment[variable].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/" + fallback
            return base + "/llmster"
        }
        configDirectory = directory("XDG_CONFIG_HOME", ".config")
        dataDirectory = directory("XDG_DATA_HOME", ".local/share")
        stateDirectory = directory("XDG_STATE_HOME", ".local/state")
        cacheDirectory = directory("XDG_CACHE_HOME", ".cache")
    }

    /// The settings file, `config` in the configuration directory.
    public var configFile: String { configDirectory + "/config" }
    /// The API token and integration secrets, `credentials` in the configuration directory.
    public var credentialsFile: String { configDirectory + "/credentials" }
    /// The conversation library, `library.sqlite3` in the data directory.
    public var libraryFile: String { dataDirectory + "/library.sqlite3" }
    /// The REPL's input history, `history` in the state directory.
    public var historyFile: String { stateDirectory + "/history" }

    /// `HOME` when set and not empty, else the home directory of the user's passwd entry, else `/`.
    public static func home(environment: [String: String]) -> String {
        if let home = environment["HOME"], !home.isEmpty { return home }
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return "/" }
        let home = String(cString: directory)
        return home.isEmpty ? "/" : home
    }
}
