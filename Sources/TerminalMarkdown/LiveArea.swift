/// The rows at the bottom of the output that are still being redrawn, and the only rows ever redrawn.
///
/// Committed lines are printed above the live area once, with autowrap on. The live lines are printed with
/// autowrap off (`CSI ?7l`), one row each, so a width misestimate clips instead of adding a row; when there are
/// more of them than the screen has rows, only the bottom ones are shown. A redraw is CR, cursor up to the first
/// live row, erase it and below, reprint — inside synchronized output (`CSI ?2026h/l`). The cursor never goes above the
/// live area and its position is never queried. Without cursor movement (not a terminal, `TERM=dumb`, Emacs)
/// live lines are not shown at all and committed lines are simply appended.
///
/// On a terminal that redraws, committed lines end with CR and IND (`ESC D`, index: down one row, scrolling at the
/// bottom) rather than a newline: the screen is the same, but under `onlcr` the kernel writes every newline on its
/// own (two pty writes a line), which was two thirds of a long reply's system time.
///
/// A terminal that rewraps its rows when the window narrows (VTE, tmux …) turns a live row wider than the new width
/// into several; `resize(width:)` counts them, so the next redraw starts at the first of them and leaves none behind.
public struct LiveArea: Sendable {
    /// Whether live lines are drawn (and redrawn) at all.
    public let redraws: Bool
    /// Whether the terminal rewraps rows on a resize (`TerminalCapabilities.reflowsOnResize`).
    let reflows: Bool
    /// How the terminal counts columns, for the rows a rewrapped line takes.
    let widthModel: WidthModel
    /// Screen rows; the live area shows at most `height − 1` of them.
    public var height: Int

    /// What ends a committed line: CR IND where the area redraws (see the type's comment), else a newline.
    private var lineEnd: String { redraws ? "\r\u{1B}D" : "\n" }

    /// The most rows the live area shows: the last of those it is given.
    var shownRows: Int { max(height - 1, 1) }
    /// Rows the live area occupies now; the cursor rests at the end of the last one.
    public private(set) var rows = 0
    private var shown: [String] = []

    /// Creates an empty live area for a terminal with `capabilities`.
    public init(capabilities: TerminalCapabilities) {
        redraws = capabilities.allowsCursorMovement
        reflows = capabilities.reflowsOnResize
        widthModel = capabilities.widthModel
        height = capabilities.height
    }

    /// Takes note that the terminal is now `width` columns wide: on a terminal that rewraps, each live line takes as
    /// many rows as its width needs at `width` (a rewrap back when it widens again included).
    public mutating func resize(width: Int) {
        guard reflows, rows > 0, width > 0 else { return }
        rows = shown.reduce(0) { total, line in
            total + max(1, (Self.visibleWidth(line, model: widthModel) + width - 1) / width)
        }
    }

    /// The columns `line` takes, its SGR and OSC sequences not counted.
    static func visibleWidth(_ line: String, model: WidthModel) -> Int {
        var text = ""
        var scalars = line.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "\u{1B}" else {
                text.unicodeScalars.append(scalar)
                continue
            }
            switch scalars.next() {
            case "[": while let next = scalars.next(), !(0x40...0x7E).contains(next.value) {}
            case "]":
                var previous: Unicode.Scalar = " "
                while let next = scalars.next(), next != "\u{7}", !(previous == "\u{1B}" && next == "\\") {
                    previous = next
                }
            default: break
            }
        }
        return DisplayWidth.of(text, model: model)
    }

    /// Prints `committed` above the live area and replaces the live area with `live` (one row per line).
    ///
    /// The committed lines are written a piece at a time (`TerminalSink.writeLines`); when `stopsOnCancellation`
    /// is set and the task is cancelled, the rest is dropped: the update ends after the last whole line written,
    /// with nothing live, so Ctrl-C stops a large step at once even on a slow terminal.
    public mutating func update<Sink: TerminalSink>(
        committed: [String], live: [String], sink: inout Sink,
        stopsOnCancellation: Bool = false
    ) {
        guard redraws else {
            var output: [UInt8] = []
            guard sink.writeLines(committed, after: &output, stoppingOnCancellation: stopsOnCancellation) else {
                return
            }
            if !output.isEmpty { sink.write(bytes: output) }
            return
        }
        let visible = Array(live.suffix(shownRows))
        guard !committed.isEmpty || visible != shown else { return }
        var output = Array("\u{1B}[?2026h".utf8)
        if rows > 0 {
            // The first live row is erased alone (EL) and the rest below it (ED from the second): tmux takes ED at the
            // screen's top-left corner for a clear screen and, with its default `scroll-on-clear`, copies the whole
            // screen into its history at each redraw of a live area that starts there (`clear; llmster ask …`).
            output += ("\r" + (rows > 1 ? "\u{1B}[\(rows - 1)A" : "") + "\u{1B}[K").utf8
            if rows > 1 { output += "\u{1B}[B\u{1B}[J\u{1B}[A".utf8 }
        }
        guard
            sink.writeLines(
                committed, after: &output, stoppingOnCancellation: stopsOnCancellation, lineEnd: lineEnd)
        else {
            sink.write("\u{1B}[?2026l")
            rows = 0
            shown = []
            return
        }
        if !visible.isEmpty {
            output += ("\u{1B}[?7l" + visible.joined(separator: "\n") + "\u{1B}[?7h").utf8
        }
        output += "\u{1B}[?2026l".utf8
        sink.write(bytes: output)
        rows = visible.count
        shown = visible
    }

    /// Leaves the live rows as they are on the screen and prints `committed` below them; nothing is live afterwards.
    public mutating func leave<Sink: TerminalSink>(committed: [String], sink: inout Sink) {
        guard redraws else { return update(committed: committed, live: [], sink: &sink) }
        var output = Array((rows > 0 ? "\r\n" : "").utf8)
        _ = sink.writeLines(committed, after: &output, stoppingOnCancellation: false, lineEnd: lineEnd)
        if !output.isEmpty { sink.write(bytes: output) }
        rows = 0
        shown = []
    }
}
