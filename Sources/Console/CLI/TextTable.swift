import Foundation
import TerminalMarkdown

/// A plain column-aligned table for command output: a header row, then rows, columns separated by two spaces.
///
/// Cells are sanitised (server text is untrusted) and aligned by display width.
public struct TextTable {
    public var header: [String]
    public var rows: [[String]] = []

    /// Creates a table with these column titles.
    public init(header: [String]) { self.header = header }

    /// Appends a row.
    public mutating func append(_ row: [String]) { rows.append(row.map(UntrustedText.sanitize)) }

    /// The table's text, one line per row, trailing spaces trimmed.
    public var text: String {
        let all = [header] + rows
        var widths = [Int](repeating: 0, count: header.count)
        for row in all {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], DisplayWidth.of(cell))
            }
        }
        return all.map { row in
            var line = ""
            for (column, cell) in row.enumerated() {
                line += cell
                if column < row.count - 1 {
                    line += String(repeating: " ", count: widths[column] - DisplayWidth.of(cell) + 2)
                }
            }
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }.joined(separator: "\n") + "\n"
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
