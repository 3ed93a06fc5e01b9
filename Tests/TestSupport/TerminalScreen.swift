/// A small model of a terminal screen, enough to check what a user would see after streamed output.
///
/// It applies printable text (wide clusters take two cells, zero-width ones join the previous cell, tabs go to
/// the next multiple of 8), CR, LF (as CR LF, like a tty with `onlcr`), CSI cursor up/down (`A`/`B`, clamped to
/// the top of the screen), forward/back (`C`/`D`), erase below (`J`), erase line (`K`), autowrap on/off (`?7h`/`?7l`)
/// and index (`ESC D`: down a row, same column); SGR, synchronized
/// output and OSC sequences (hyperlinks) are consumed without affecting the grid. Scrollback is unlimited: rows
/// that scroll off the top stay in `lines`.
public struct TerminalScreen {
    /// Columns.
    public private(set) var width: Int
    /// Rows of the visible screen (cursor up cannot leave it).
    public let height: Int
    /// Row of the cursor, counted from the first row ever written.
    public private(set) var cursorRow = 0
    /// Column of the cursor.
    public private(set) var cursorColumn = 0
    /// The smallest row the cursor visited since `resetTopmostRow()`.
    public private(set) var topmostRow = 0
    /// Whether autowrap is on.
    public private(set) var autowrap = true
    /// Escape sequences seen that the model does not know, so tests can fail on them.
    public private(set) var unknownSequences: [String] = []
    /// Whether erase below (`CSI J`) at the visible screen's top-left corner first copies the screen into the
    /// scrollback, as tmux does with its default `scroll-on-clear`.
    public var scrollsOnClear = false

    private var rows: [[String]] = [[]]
    private var pendingWrap = false
    private var bottomRow = 0
    private let widthOf: (Character) -> Int

    /// Creates an empty screen; `widthOf` gives a cluster's columns (the renderer's own width function).
    public init(width: Int, height: Int = 1000, widthOf: @escaping (Character) -> Int = { _ in 1 }) {
        self.width = width
        self.height = height
        self.widthOf = widthOf
    }

    /// The visible text of every row, trailing spaces and trailing empty rows removed.
    public var lines: [String] {
        var result = rows.map { row in
            var line = row.joined()
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
        while result.last == "" { result.removeLast() }
        return result
    }

    /// The text of the rows above `row`, for checking that committed output never changes.
    public func lines(above row: Int) -> [String] {
        Array(rows.prefix(row)).map { $0.joined() }
    }

    /// Forgets the topmost row visited so far, starting a new observation at the cursor.
    public mutating func resetTopmostRow() { topmostRow = cursorRow }

    /// Changes the width as a terminal that rewraps its rows does (VTE, tmux, kitty): each row wider than `width` is
    /// split into rows of `width` cells (a wide character is never split from its second cell), and the cursor keeps
    /// its place in the text. Rows are not joined again when the screen widens.
    public mutating func resize(width newWidth: Int) {
        var newRows: [[String]] = []
        var newCursor = (row: 0, column: 0)
        var newBottom = 0
        var cursorPendingWrap = false
        for (index, row) in rows.enumerated() {
            var cells = row
            while cells.last == " ", index != cursorRow || cells.count > cursorColumn { cells.removeLast() }
            var chunks: [[String]] = []
            var rest = cells[...]
            repeat {
                var end = min(newWidth, rest.count)
                while end > 0, end < rest.count, rest[rest.startIndex + end].isEmpty { end -= 1 }
                if end == 0 { end = min(newWidth, rest.count) }
                chunks.append(Array(rest.prefix(end)))
                rest = rest.dropFirst(end)
            } while !rest.isEmpty
            if index == cursorRow {
                var column = pendingWrap ? width : cursorColumn
                var chunk = 0
                while chunk < chunks.count - 1, column >= chunks[chunk].count, column > 0 {
                    column -= chunks[chunk].count
                    chunk += 1
                }
                if column >= newWidth {
                    column = newWidth - 1
                    cursorPendingWrap = true
                }
                newCursor = (newRows.count + chunk, column)
            }
            if index == bottomRow { newBottom = newRows.count + chunks.count - 1 }
            newRows += chunks
        }
        rows = newRows
        width = newWidth
        cursorRow = newCursor.row
        cursorColumn = newCursor.column
        pendingWrap = cursorPendingWrap
        bottomRow = max(newBottom, cursorRow)
        topmostRow = min(topmostRow, cursorRow)
    }

    /// Applies terminal output.
    public mutating func apply(_ output: String) {
        var characters = Array(output)[...]
        while let character = characters.popFirst() {
            switch character {
            case "\u{1B}":
                consumeEscape(&characters)
            case "\r\n", "\n":
                moveTo(row: cursorRow + 1)
                cursorColumn = 0
            case "\r":
                cursorColumn = 0
                pendingWrap = false
            case "\t":
                let next = min((cursorColumn / 8 + 1) * 8, width - 1)
                while cursorColumn < next { put(" ", width: 1) }
            default:
                let cells = widthOf(character)
                if cells == 0 {
                    attachToPreviousCell(character)
                } else {
                    put(String(character), width: cells)
                }
            }
        }
    }

    private mutating func consumeEscape(_ characters: inout ArraySlice<Character>) {
        guard let kind = characters.popFirst() else { return }
        switch kind {
        case "[":
            var parameters = ""
            while let next = characters.popFirst() {
                if let ascii = next.asciiValue, (0x40...0x7E).contains(ascii) {
                    applyCSI(parameters, final: next)
                    return
                }
                parameters.append(next)
            }
        case "]":
            while let next = characters.popFirst() {
                if next == "\u{07}" { return }
                if next == "\u{1B}" {
                    _ = characters.popFirst()
                    return
                }
            }
        case "D":
            moveTo(row: cursorRow + 1)
        default:
            unknownSequences.append("ESC \(kind)")
        }
    }

    private mutating func applyCSI(_ parameters: String, final: Character) {
        let count = max(Int(parameters) ?? 1, 1)
        switch (parameters, final) {
        case (_, "m"), ("?2026", "h"), ("?2026", "l"): break
        case ("?7", "h"): autowrap = true
        case ("?7", "l"): autowrap = false
        case (_, "A"):
            moveTo(row: max(cursorRow - count, max(bottomRow - height + 1, 0)))
        case (_, "B"):
            moveTo(row: cursorRow + count)
        case (_, "C"):
            cursorColumn = min(cursorColumn + count, width - 1)
            pendingWrap = false
        case (_, "D"):
            cursorColumn = max(cursorColumn - count, 0)
            pendingWrap = false
        case ("", "J"), ("0", "J"):
            ensureRow(cursorRow)
            if scrollsOnClear, cursorColumn == 0, cursorRow == max(bottomRow - height + 1, 0) {
                let screen = Array(rows[cursorRow...min(bottomRow, rows.count - 1)])
                rows.insert(contentsOf: screen, at: cursorRow)
                cursorRow += screen.count
                bottomRow += screen.count
            }
            rows[cursorRow] = Array(rows[cursorRow].prefix(cursorColumn))
            rows.removeSubrange((cursorRow + 1)...)
            bottomRow = cursorRow
        case ("", "K"), ("0", "K"):
            ensureRow(cursorRow)
            rows[cursorRow] = Array(rows[cursorRow].prefix(cursorColumn))
        case ("2", "K"):
            // The whole row is blanked; the cursor stays where it is.
            ensureRow(cursorRow)
            rows[cursorRow] = Array(repeating: " ", count: cursorColumn)
        default:
            unknownSequences.append("CSI \(parameters)\(final)")
        }
    }

    private mutating func moveTo(row: Int) {
        cursorRow = row
        pendingWrap = false
        topmostRow = min(topmostRow, row)
        bottomRow = max(bottomRow, row)
        ensureRow(row)
    }

    private mutating func ensureRow(_ row: Int) {
        while rows.count <= row { rows.append([]) }
    }

    private mutating func put(_ text: String, width cells: Int) {
        if pendingWrap && autowrap {
            moveTo(row: cursorRow + 1)
            cursorColumn = 0
        }
        pendingWrap = false
        if cursorColumn + cells > width {
            if autowrap {
                moveTo(row: cursorRow + 1)
                cursorColumn = 0
            } else {
                cursorColumn = max(width - cells, 0)
            }
        }
        ensureRow(cursorRow)
        while rows[cursorRow].count < cursorColumn + cells { rows[cursorRow].append(" ") }
        rows[cursorRow][cursorColumn] = text
        for extra in 1..<max(cells, 1) { rows[cursorRow][cursorColumn + extra] = "" }
        if cursorColumn + cells >= width {
            cursorColumn = width - 1
            pendingWrap = true
            if !autowrap { pendingWrap = false }
        } else {
            cursorColumn += cells
        }
    }

    private mutating func attachToPreviousCell(_ character: Character) {
        ensureRow(cursorRow)
        var column = pendingWrap ? cursorColumn : cursorColumn - 1
        while column >= 0 && column < rows[cursorRow].count && rows[cursorRow][column].isEmpty { column -= 1 }
        if column >= 0 && column < rows[cursorRow].count {
            rows[cursorRow][column] += String(character)
        } else {
            put(String(character), width: 0)
        }
    }
}
