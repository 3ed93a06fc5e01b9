import Foundation
import TerminalMarkdown

/// Unbuffered writes to standard output or standard error, safe from any thread.
public struct StandardStream: Sendable, TextOutputStream {
    public let fd: Int32

    public static let output = StandardStream(fd: 1)
    public static let error = StandardStream(fd: 2)

    /// Whether the stream is a terminal.
    public var isTerminal: Bool { isatty(fd) == 1 }

    public mutating func write(_ string: String) { send(string) }

    /// Writes `string` completely; errors such as a closed pipe are ignored.
    public func send(_ string: String) {
        var sink = FileDescriptorSink(fd: fd)
        sink.write(string)
        sink.flush()
    }

    /// Writes `string` and a newline.
    public func line(_ string: String = "") { send(string + "\n") }

    /// Writes `text` and a newline, each of its lines wrapped at word boundaries to the terminal's width with
    /// continuation lines indented by `indent` spaces; unchanged when the stream is not a terminal (for scripts).
    public func wrappedLine(_ text: String, indent: Int = 0) {
        let terminal = TerminalCapabilities.detect(fd: fd, environment: [:])
        guard terminal.isTTY else { return line(text) }
        line(text.split(separator: "\n", omittingEmptySubsequences: false).map {
            TextLayout.wrap(String($0), width: terminal.width, indent: indent, fit: terminal.textFit).joined(separator: "\n")
        }.joined(separator: "\n"))
    }
}
