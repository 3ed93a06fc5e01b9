import Foundation
import Synchronization

/// Whether the terminal window has the focus, from the terminal's focus reports (`CSI ? 1004 h` turns them on;
/// it then sends `CSI I` on focus and `CSI O` when the user switches away).
///
/// A terminal without focus reports never sends one: the focus is then unknown, and the REPL behaves as before.
final class TerminalFocus: Sendable {
    private struct State {
        var reporting = false
        var focused: Bool?
    }
    private let state = Mutex(State())

    /// The one terminal the REPL runs on.
    static let shared = TerminalFocus()

    /// True or false once the terminal reported a focus change; nil when it never did.
    var isFocused: Bool? { state.withLock { $0.focused } }

    /// Records a focus report.
    func record(focused: Bool) { state.withLock { $0.focused = focused } }

    /// Asks the terminal for focus reports (the REPL's start) or stops them (its end).
    func setReporting(_ on: Bool) {
        state.withLock { $0.reporting = on }
        write(on)
    }

    /// Stops the reports while `body` hands the terminal to someone else (a pager, an editor, the shell after
    /// Ctrl-Z), who would read them as typed keys.
    func suspended<T>(_ body: () throws -> T) rethrows -> T {
        let reporting = state.withLock { $0.reporting }
        if reporting { write(false) }
        defer { if reporting { write(true) } }
        return try body()
    }

    /// `bytes` without the focus reports in them; the last one is recorded.
    func removingReports(from bytes: [UInt8]) -> [UInt8] {
        var rest: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if index + 2 < bytes.count, bytes[index] == 0x1B, bytes[index + 1] == UInt8(ascii: "["),
                bytes[index + 2] == UInt8(ascii: "I") || bytes[index + 2] == UInt8(ascii: "O")
            {
                record(focused: bytes[index + 2] == UInt8(ascii: "I"))
                index += 3
            } else {
                rest.append(bytes[index])
                index += 1
            }
        }
        return rest
    }

    private func write(_ on: Bool) {
        StandardStream.output.send(laidOut: on ? "\u{1B}[?1004h" : "\u{1B}[?1004l")
    }
}
