import Foundation

/// The XDG base directories llmster uses, with their fallbacks under `$HOME`.
public enum XDGDirectory: Sendable {
    case config, data, state

    /// The directory's path for this environment.
    public func path(environment: [String: String]) -> String {
        let (variable, fallback) = switch self {
        case .config: ("XDG_CONFIG_HOME", ".config")
        case .data: ("XDG_DATA_HOME", ".local/share")
        case .state: ("XDG_STATE_HOME", ".local/state")
        }
        if let value = environment[variable], value.hasPrefix("/") { return value }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/" + fallback
    }
}
