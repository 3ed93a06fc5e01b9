import TerminalMarkdown

/// The matches Tab lists, laid out for the screen: in columns filled top to bottom (as readline and ls do), or one
/// a line when each carries a description; never more rows than the screen has below the prompt.
struct CompletionListing: Equatable {
    /// The matches, or their described lines.
    let items: [String]
    /// Whether each item takes a line of its own.
    let oneALine: Bool

    init(_ items: [String], oneALine: Bool = false) {
        self.items = items
        self.oneALine = oneALine
    }

    /// The rows for a `width`×`height` screen; when the matches do not fit, the first ones are shown and a last row
    /// says how many more there are.
    func lines(width: Int, height: Int) -> [String] {
        let room = max(height - 3, 2)
        let columnWidth = (items.map { DisplayWidth.of($0) }.max() ?? 0) + 2
        let columns = oneALine ? 1 : max(1, (max(width, 1) + 2) / columnWidth)
        guard (items.count + columns - 1) / columns > room else {
            return Self.columns(items, columns: columns, width: columnWidth)
        }
        let shown = Array(items.prefix((room - 1) * columns))
        return Self.columns(shown, columns: columns, width: columnWidth)
            + ["… and \(items.count - shown.count) more; type more of the word to narrow them"]
    }

    /// `items` in `columns` columns of `width` cells, filled top to bottom.
    private static func columns(_ items: [String], columns: Int, width: Int) -> [String] {
        let rowCount = (items.count + columns - 1) / columns
        return (0..<rowCount).map { row in
            var line = ""
            for index in stride(from: row, to: items.count, by: rowCount) {
                let item = items[index]
                line +=
                    index + rowCount >= items.count
                    ? item : item + String(repeating: " ", count: width - DisplayWidth.of(item))
            }
            return line
        }
    }
}
