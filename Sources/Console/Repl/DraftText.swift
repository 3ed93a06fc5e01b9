import Foundation

/// A draft as the library keeps it and as the REPL's line holds it.
///
/// The library keeps the message a draft would send, which the editors show as it stands. The line holds it as it is
/// typed here: a message starting with a slash escaped with a second one (else Enter runs it as a command), and an
/// edit of the last message as `/edit TEXT`. A draft goes through `message(fromLine:)` on its way into the library
/// and `line(fromMessage:)` on its way back, so a draft written by one face means the same in the other.
enum DraftText {
    /// The message `line` sends: one slash of an escaped message dropped (the line trimmed, as Enter sends it), an
    /// edit's text without `/edit`. A half-typed command kept as a draft stays as typed (it sends nothing here; an
    /// editor shows its text).
    static func message(fromLine line: String) -> String {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("//") { return String(trimmed.dropFirst()) }
        if trimmed.hasPrefix("/edit ") { return String(trimmed.dropFirst("/edit ".count)) }
        return line
    }

    /// The line that sends `message`: a leading slash doubled. Enter trims the line before it looks for a command,
    /// so a slash after blanks is escaped too (the blanks go, as they would from a typed line).
    static func line(fromMessage message: String) -> String {
        let start = message.drop { $0.isWhitespace }
        return start.hasPrefix("/") ? "/" + start : message
    }
}
