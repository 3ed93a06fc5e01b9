import TerminalMarkdown

/// A command's usage line, `usage: llmster load MODEL [--context-length N] …`, made from what llmster declares (its
/// command table), so a writer can take it beside sanitised messages.
public struct UsageLine: Sendable, CustomStringConvertible {
    /// `usage: llmster NAME` or `usage: /NAME`.
    public let term: String
    /// The arguments and options after it.
    public let synopsis: String

    public var description: String { synopsis.isEmpty ? term : term + " " + synopsis }

    /// The line laid out to `width` (`TextLayout.usage`): as `--help`, `/help NAME` and a usage error show it.
    public func lines(width: Int, fit: TextFit) -> [String] {
        TextLayout.usage(term, synopsis, width: width, fit: fit)
    }

    /// The same line with `note` after it (`; see llmster --help`).
    func adding(_ note: String) -> UsageLine { UsageLine(term: term, synopsis: synopsis + note) }
}
