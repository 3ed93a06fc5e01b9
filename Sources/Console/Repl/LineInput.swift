/// What came back from the prompt.
enum LineInput: Sendable, Equatable {
    /// Enter was pressed on this text.
    case line(String)
    /// Ctrl-C: the line is cleared; `draft` is what it held.
    case interrupted(draft: String)
    /// Ctrl-D on an empty line, or the end of piped input.
    case endOfInput
    /// SIGTERM or SIGHUP arrived at the prompt; `draft` is what the line held.
    case terminated(draft: String, signal: Int32)
}
