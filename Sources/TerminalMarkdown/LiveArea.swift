/// The rows at the bottom of the output that are still being redrawn, and the only rows ever redrawn.
///
/// Committed lines are printed above the live area once, with autowrap on. The live lines are printed with
/// autowrap off (`CSI ?7l`), one row each, so a width misestimate clips instead of adding a row; when there are
/// more of them than the screen has rows, only the bottom ones are shown. A redraw is CR, cursor up to the first
/// live row, erase below, reprint — inside synchronized output (`CSI ?2026h/l`). The cursor never goes above the
/// live area and its position is never queried. Without cursor movement (not a terminal, `TERM=dumb`, Emacs)
/// live lines are not shown at all and committed lines are simply appended.
public struct LiveArea: Sendable {
    /// Whether live lines are drawn (and redrawn) at all.
    public let redraws: Bool
    /// Screen rows; the live area shows at most `height − 1` of them.
    public var height: Int
    /// Rows the live area occupies now; the cursor rests at the end of the last one.
    public private(set) var rows = 0
    private var shown: [String] = []

    /// Creates an empty live area for a terminal with `capabilities`.
    public init(capabilities: TerminalCapabilities) {
        redraws = capabilities.allowsCursorMovement
        height = capabilities.height
    }

    /// Prints `committed` above the live area and replaces the live area with `live` (one row per line).
    public mutating func update<Sink: TerminalSink>(committed: [String], live: [String], sink: inout Sink) {
        guard redraws else {
            if !committed.isEmpty { sink.write(committed.map { $0 + "\n" }.joined()) }
            return
        }
        let visible = Array(live.suffix(max(height - 1, 1)))
        guard !committed.isEmpty || visible != shown else { return }
        var output = "\u{1B}[?2026h"
        if rows > 0 {
            output += "\r" + (rows > 1 ? "\u{1B}[\(rows - 1)A" : "") + "\u{1B}[J"
        }
        for line in committed { output += line + "\n" }
        if !visible.isEmpty {
            output += "\u{1B}[?7l" + visible.joined(separator: "\n") + "\u{1B}[?7h"
        }
        output += "\u{1B}[?2026l"
        sink.write(output)
        rows = visible.count
        shown = visible
    }

    /// Leaves the live rows as they are on the screen and prints `committed` below them; nothing is live afterwards.
    public mutating func leave<Sink: TerminalSink>(committed: [String], sink: inout Sink) {
        guard redraws else { return update(committed: committed, live: [], sink: &sink) }
        var output = rows > 0 ? "\r\n" : ""
        for line in committed { output += line + "\n" }
        if !output.isEmpty { sink.write(output) }
        rows = 0
        shown = []
    }
}
