import Foundation
import Markdown
import TerminalMarkdown

/// A plain column-aligned table for command output: a header row, then rows, columns separated by two spaces.
///
/// Cells are sanitised to one line each (server and library text is untrusted: `UntrustedText.oneLine`) and aligned by display width as the terminal counts it. Given a
/// width, columns that may shrink are cut (with `…`, or `...` without UTF-8; see `TextFit`) down to their minimum,
/// and the least important columns are dropped while even that does not fit; no line is wider than the width.
public struct TextTable {
    /// A column's title and how it gives way on a narrow terminal.
    public struct Column: Sendable {
        public var title: String
        /// The narrowest the column may be cut to; nil for a column that is never cut (ids, sizes, dates).
        public var minimumWidth: Int?
        /// Lower is more important: on a narrow terminal the highest is dropped first.
        public var priority: Int

        /// Declares a column.
        public init(_ title: String, minimumWidth: Int? = nil, priority: Int) {
            self.title = title
            self.minimumWidth = minimumWidth
            self.priority = priority
        }
    }

    public var columns: [Column]
    public var rows: [[String]] = []
    /// The column titles.
    public var header: [String] { columns.map(\.title) }

    /// Creates a table with these columns.
    public init(columns: [Column]) { self.columns = columns }

    /// Appends a row.
    public mutating func append(_ row: [String]) { rows.append(row.map(UntrustedText.oneLine)) }

    /// The table's text laid out to `width` columns (nil: as wide as its cells), measured and cut by `fit`.
    public func text(width: Int?, fit: TextFit) -> String {
        let all = [header] + rows
        var natural = [Int](repeating: 0, count: columns.count)
        for row in all {
            for (column, cell) in row.enumerated() where column < natural.count {
                natural[column] = max(natural[column], fit.columns(cell))
            }
        }
        var widths = natural
        var shown = Array(columns.indices)
        if let width {
            func minimum(_ column: Int) -> Int { min(natural[column], columns[column].minimumWidth ?? natural[column]) }
            func total(_ columns: [Int], _ width: (Int) -> Int) -> Int {
                columns.map(width).reduce(0, +) + 2 * max(columns.count - 1, 0)
            }
            while shown.count > 1, total(shown, minimum) > width,
                let dropped = shown.max(by: { columns[$0].priority < columns[$1].priority })
            {
                shown.removeAll { $0 == dropped }
            }
            if total(shown, { natural[$0] }) > width {
                for column in shown { widths[column] = minimum(column) }
                var spare = width - total(shown, { widths[$0] })
                for column in shown.sorted(by: { columns[$0].priority < columns[$1].priority }) where spare > 0 {
                    let grown = min(natural[column] - widths[column], spare)
                    widths[column] += grown
                    spare -= grown
                }
            }
        }
        return all.map { row in
            var line = ""
            for (position, column) in shown.enumerated() where column < row.count {
                line +=
                    position < shown.count - 1
                    ? fit.pad(row[column], to: widths[column]) + "  "
                    : fit.cut(row[column], to: widths[column])
            }
            if let width { line = fit.cut(line, to: width) }
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }.joined(separator: "\n") + "\n"
    }
}

/// Plain-text layout to a terminal's width: word wrapping with a hanging indent, measured by `TextFit`.
public enum TextLayout {
    /// The width command output is laid out to: the terminal's when `fd` (standard output by default) is one,
    /// else `$COLUMNS` when set; nil when neither (piped output keeps whole lines for scripts).
    public static func outputWidth(environment: [String: String], fd: Int32 = 1) -> Int? {
        let terminal = TerminalCapabilities.detect(fd: fd, environment: environment)
        if terminal.isTTY { return terminal.width }
        return environment["COLUMNS"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
    }

    /// `text` as lines of at most `width` display columns (as `fit` counts them), broken at spaces; the lines after
    /// the first are indented by `indent` spaces (a hanging indent).
    ///
    /// Leading spaces and runs of spaces inside a line are kept; a line break replaces one space. A word longer
    /// than a whole line is split, starting where it stands (it would be split on a line of its own too).
    public static func wrap(_ text: String, width: Int, indent: Int = 0, fit: TextFit) -> [String] {
        let width = max(width, 1)
        let indent = min(indent, max(width - 10, 0))
        let leading = text.prefix { $0 == " " }
        var lines: [String] = []
        var line = String(leading)
        var used = leading.count
        var lineHasWords = false
        for word in text.dropFirst(leading.count).split(separator: " ", omittingEmptySubsequences: false) {
            var word = word
            var wordWidth = fit.columns(String(word))
            if lineHasWords, used + 1 + wordWidth > width, wordWidth > 0, wordWidth <= width - indent {
                lines.append(line)
                line = String(repeating: " ", count: indent)
                used = indent
                lineHasWords = false
            }
            if lineHasWords {
                line += " "
                used += 1
            }
            while used + wordWidth > width, width - used > 0 {
                let (head, rest) = fit.split(word, columns: width - used)
                lines.append(line + head)
                line = String(repeating: " ", count: indent)
                used = indent
                word = rest
                wordWidth = fit.columns(String(word))
            }
            line += word
            used += wordWidth
            lineHasWords = true
        }
        lines.append(line)
        return lines
    }

    /// `term` then `description` from `column` on, the description wrapped with a hanging indent to `width`
    /// (`  -m, --model MODEL  model key …`); a term too wide for the column (which is at most `maximumColumn`,
    /// by default a third of the width) puts the description below it.
    public static func hanging(
        _ term: String, _ description: String, column: Int, width: Int, gap: Int = 2,
        maximumColumn: Int? = nil, fit: TextFit
    ) -> String {
        let column = min(column, maximumColumn ?? max(width / 3, 12), max(width - 20, 0))
        let indent = String(repeating: " ", count: column)
        let lines = wrap(description, width: width - column, fit: fit)
        let termWidth = fit.columns(term)
        var result: [String]
        if termWidth + gap <= column {
            result = [fit.pad(term, to: column) + lines[0]] + lines.dropFirst().map { indent + $0 }
        } else {
            // A term wider than the line continues two columns further in than it starts.
            let leading = term.prefix { $0 == " " }.count
            result =
                (termWidth <= width ? [term] : wrap(term, width: width, indent: leading + 2, fit: fit))
                + lines.map { indent + $0 }
        }
        return result.map { line in
            var line = line
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }.joined(separator: "\n")
    }

    /// A usage line laid out to `width`: `term` (`usage: llmster load`), then `synopsis` wrapped only between its
    /// bracketed groups (`[--sort name|size|format]` stays whole), continuing under the synopsis's start (at most
    /// half the width in), or further out, below the term, when the widest group would not fit there.
    public static func usage(_ term: String, _ synopsis: String, width: Int, fit: TextFit) -> [String] {
        guard !synopsis.isEmpty else { return [term] }
        let groups = keepingGroups(synopsis)
        let widest = groups.split(separator: " ").map { fit.columns(String($0)) }.max() ?? 0
        let column = max(min(fit.columns(term) + 1, width / 2, width - widest), 4)
        let text = hanging(term, groups, column: column, width: width, gap: 1, maximumColumn: column, fit: fit)
        return restoringSpaces(text).components(separatedBy: "\n")
    }

    /// `synopsis` with the spaces inside its bracketed groups made no-break, so that wrapping breaks only between
    /// groups; `restoringSpaces` undoes it.
    private static func keepingGroups(_ synopsis: String) -> String {
        var depth = 0
        return String(
            synopsis.map { character -> Character in
                if character == "[" { depth += 1 } else if character == "]" { depth -= 1 }
                return character == " " && depth > 0 ? "\u{A0}" : character
            })
    }

    private static func restoringSpaces(_ text: String) -> String { text.replacingOccurrences(of: "\u{A0}", with: " ") }

    /// Paragraphs (separated by blank lines; the lines of one are joined) wrapped to `width`, each line indented
    /// by `indent` spaces.
    public static func paragraphs(_ text: String, width: Int, indent: Int = 0, fit: TextFit) -> String {
        let pad = String(repeating: " ", count: indent)
        return text.components(separatedBy: "\n\n").map { paragraph in
            let joined = paragraph.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(
                separator: " ")
            return wrap(joined, width: width - indent, fit: fit).map { pad + $0 }.joined(separator: "\n")
        }.joined(separator: "\n\n")
    }
}

/// Human units for sizes and counts.
public enum Units {
    /// 812000000 → `812 MB`, 4920000000 → `4.92 GB` (decimal units, as LM Studio shows them).
    public static func bytes(_ count: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        if unit == 0 { return "\(count) B" }
        let digits = value >= 100 ? 0 : value >= 10 ? 1 : 2
        var text = String(format: "%.\(digits)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return "\(text) \(units[unit])"
    }

    /// 3402 → `3,402`.
    public static func grouped(_ count: Int) -> String {
        let digits = String(abs(count))
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result += "," }
            result.append(digit)
        }
        return (count < 0 ? "-" : "") + result
    }
}
