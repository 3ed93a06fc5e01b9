import Foundation

/// Why a reply stopped when a signal stopped it: the reason saved with it and shown on every face's end line, the same
/// for `ask`, the REPL and `rpc`.
public enum StopReason {
    /// The reason for `signal`; nil for Ctrl-C and no signal (the usual "Cancelled"). `hangUp` says what SIGHUP means
    /// where the process runs: its terminal closed, or for `rpc` the editor that started it (Emacs hangs up on its
    /// processes when it exits).
    public static func signal(_ signal: Int32?, hangUp: String = "the terminal closed") -> String? {
        switch signal {
        case SIGPIPE: "Output closed"
        case SIGTERM: "Stopped by SIGTERM"
        case SIGHUP: "Stopped by SIGHUP (\(hangUp))"
        default: nil
        }
    }
}
