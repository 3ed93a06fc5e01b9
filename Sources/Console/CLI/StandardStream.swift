import Foundation
import LMStudio
import TerminalMarkdown

/// Unbuffered writes to standard output or standard error, safe from any thread.
///
/// It writes only a ``SanitizedMessage`` (llmster's own words, every value put into them made inert) or, under its
/// own label, text llmster laid out for the terminal itself: a plain string from a model, a server or a file does not
/// compile as either by accident.
public struct StandardStream: Sendable {
    public let fd: Int32

    public static let output = StandardStream(fd: 1)
    public static let error = StandardStream(fd: 2)

    /// Whether the stream is a terminal.
    public var isTerminal: Bool { isatty(fd) == 1 }

    /// Writes `message` completely; errors such as a closed pipe are ignored.
    public func send(_ message: SanitizedMessage) { write(message.description) }

    /// Writes `text` as it is: what llmster laid out for the terminal itself (rendered Markdown, a table, a help page,
    /// a JSON document, its own escape sequences), from values it sanitised as it put them in.
    public func send(laidOut text: String) { write(text) }

    /// Writes `string` completely; errors such as a closed pipe are ignored.
    private func write(_ string: String) {
        var sink = FileDescriptorSink(fd: fd)
        sink.write(string)
        sink.flush()
    }

    /// Writes `message` and a newline. On a terminal, a line of it wider than the terminal is wrapped at word
    /// boundaries, its continuation indented as it is, so no word is split at the edge; a line holding escape
    /// sequences (llmster's own styling) was laid out already and is left alone, and so is everything when the
    /// stream is not a terminal.
    ///
    /// A `SanitizedMessage` is llmster's own words with every value put into them made inert, so a message cannot
    /// carry a control sequence from a model, a server or a file: passing a plain `String` does not compile.
    public func line(_ message: SanitizedMessage = "") {
        let string = message.description
        guard string.utf8.count > 20, !string.utf8.contains(0x1B) else { return write(string + "\n") }
        wrappedLine(message, indent: nil)
    }

    /// Writes `text` and a newline as it is: a line llmster styled itself (SGR around its own words, the values in
    /// it sanitised when they were put in), laid out already.
    public func line(styled text: String) {
        write(text + "\n")
    }

    /// Writes `value` as one line of JSON, never wrapped: it is read by programs, and copied from a terminal it must
    /// still parse (a line break inside a string would not).
    public func json(_ value: JSONValue) {
        write(value.jsonString + "\n")
    }

    /// Writes `message` and a newline, each of its lines wrapped at word boundaries to the terminal's width with
    /// continuation lines indented by `indent` spaces (nil: as far as the line itself is). Unchanged when the stream
    /// is not a terminal (for scripts).
    public func wrappedLine(_ message: SanitizedMessage, indent: Int? = 0) {
        let terminal = TerminalCapabilities.detect(fd: fd, environment: [:])
        write(wrapped(message.description, indent: indent, on: terminal) + "\n")
    }

    /// Writes a usage error: `message` as `wrappedLine` writes it, then the usage line `usage`, laid out on a
    /// terminal as `--help` shows it (breaking only between bracketed groups).
    public func usageError(_ message: SanitizedMessage, usage: UsageLine, indent: Int) {
        let terminal = TerminalCapabilities.detect(fd: fd, environment: [:])
        let usageLines =
            terminal.isTTY ? usage.lines(width: terminal.width, fit: terminal.textFit) : [usage.description]
        write(
            wrapped(message.description, indent: indent, on: terminal) + "\n" + usageLines.joined(separator: "\n")
                + "\n")
    }

    /// `text` with each line wider than `terminal` wrapped at word boundaries, continuation lines indented by
    /// `indent` spaces (nil: as far as the line itself is); unchanged when it is not a terminal.
    private func wrapped(_ text: String, indent: Int?, on terminal: TerminalCapabilities) -> String {
        guard terminal.isTTY else { return text }
        let fit = terminal.textFit
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            let line = String(line)
            guard fit.columns(line) > terminal.width else { return line }
            return TextLayout.wrap(
                line, width: terminal.width, indent: indent ?? line.prefix { $0 == " " }.count, fit: fit
            )
            .joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
