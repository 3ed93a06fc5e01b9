/// Renders parsed Markdown blocks to terminal lines at a given width.
///
/// Prose is hard-wrapped at `width − 1` columns so the renderer always knows how many rows a line takes; code
/// lines are emitted verbatim (no wrapping, tabs kept) and left to the terminal's soft wrap, so a copied code
/// block is exactly the code. Every block is rendered independently of the blocks around it, which is what lets
/// `MarkdownStream` print a finished block once and never touch it again.
struct BlockRenderer {
    /// Terminal columns; prose uses one less.
    var width: Int
    var level: StyleLevel
    /// Box drawing, bullets and check boxes from Unicode; ASCII otherwise.
    var unicode: Bool
    /// Links to linkable URLs become OSC 8 hyperlinks (never at `StyleLevel.plain`).
    var hyperlinks: Bool
    var theme = MarkdownTheme.standard
    /// List nesting the rendered blocks sit at (it picks the bullet); above 0 inside a streamed list item.
    var depth = 0

    /// Body rows of a table that decide its column widths; later rows wrap inside those widths.
    static let tableWidthRows = 10

    /// Creates a renderer; `hyperlinks` is ignored when `level` is plain.
    init(width: Int, level: StyleLevel, unicode: Bool, hyperlinks: Bool) {
        self.width = width
        self.level = level
        self.unicode = unicode
        self.hyperlinks = hyperlinks && level != .plain
    }

    private var wrapper: LineWrapper { LineWrapper(level: level, hyperlinks: hyperlinks) }
    private var proseWidth: Int { max(width - 1, 1) }

    // MARK: Blocks

    /// The lines of `blocks` separated by blank lines, as a whole document renders them.
    func lines(for blocks: [MarkdownBlock]) -> [String] {
        var output: [String] = []
        for (index, block) in blocks.enumerated() {
            if index > 0 { output.append("") }
            output += lines(for: block, width: proseWidth)
        }
        return output
    }

    /// The lines of one top-level block.
    func lines(for block: MarkdownBlock) -> [String] { lines(for: block, width: proseWidth, depth: depth) }

    private func lines(for block: MarkdownBlock, width: Int, depth: Int = 0) -> [String] {
        switch block {
        case .paragraph(let inlines):
            return wrapper.wrap(runs(inlines, style: .plain), width: width).map(\.text)
        case .heading(let level, let inlines):
            let marker = StyledRun(text: String(repeating: "#", count: level) + " ", style: theme.headingMarker)
            return wrapper.wrap([marker] + runs(inlines, style: theme.heading(level)), width: width).map(\.text)
        case .codeBlock(let info, let literal):
            return [codeFenceOpening(info: info)] + codeLines(literal).map(codeLine) + [codeFenceClosing]
        case .html(let literal):
            return codeLines(literal).map { theme.html.apply($0, at: level) }
        case .thematicBreak:
            return [theme.rule.apply(String(repeating: unicode ? "─" : "-", count: min(width, 60)), at: level)]
        case .blockQuote(let children):
            let bar = theme.quoteBar.apply(unicode ? "│" : ">", at: level)
            return childLines(children, width: width - 2, depth: depth, inListItem: false).map { $0.isEmpty ? bar : bar + " " + $0 }
        case .list(let list):
            var output: [String] = []
            for (index, item) in list.items.enumerated() {
                output += listItemLines(item, number: list.start.map { $0 + index }, depth: depth, width: width)
            }
            return output
        case .table(let table):
            let widths = columnWidths(table, width: width)
            return tableOpening(table, widths: widths) + table.rows.flatMap { tableRow($0, table: table, widths: widths) }
                + [tableClosing(widths: widths)]
        }
    }

    /// Lines of a container's children; inside list items a nested list follows its paragraph without a blank line.
    private func childLines(_ children: [MarkdownBlock], width: Int, depth: Int, inListItem: Bool) -> [String] {
        var output: [String] = []
        for (index, child) in children.enumerated() {
            if case .list(let list) = child {
                if index > 0 && !inListItem { output.append("") }
                for (itemIndex, item) in list.items.enumerated() {
                    output += listItemLines(item, number: list.start.map { $0 + itemIndex }, depth: depth, width: width)
                }
            } else {
                if index > 0 { output.append("") }
                output += lines(for: child, width: width, depth: depth)
            }
        }
        return output
    }

    // MARK: Lists

    /// The lines of one top-level list item; `number` is nil for bullet items.
    func listItemLines(_ item: MarkdownListItem, number: Int?) -> [String] {
        listItemLines(item, number: number, depth: depth, width: proseWidth)
    }

    private func listItemLines(_ item: MarkdownListItem, number: Int?, depth: Int, width: Int) -> [String] {
        let bullets = unicode ? ["•", "◦", "▪"] : ["-", "*", "+"]
        var marker = number.map { "\($0)." } ?? bullets[depth % bullets.count]
        var markerText = theme.listMarker.apply(marker, at: level)
        if let done = item.task {
            let box = unicode ? (done ? "☑" : "☐") : (done ? "[x]" : "[ ]")
            marker += " " + box
            markerText += " " + (done ? theme.taskDone : theme.taskOpen).apply(box, at: level)
        }
        let indent = DisplayWidth.of(marker) + 1
        let body = childLines(item.blocks, width: width - indent, depth: depth + 1, inListItem: true)
        guard let first = body.first else { return [markerText] }
        let padding = String(repeating: " ", count: indent)
        return [markerText + " " + first] + body.dropFirst().map { $0.isEmpty ? "" : padding + $0 }
    }

    // MARK: Code

    /// The dim opening fence that names the language.
    func codeFenceOpening(info: String) -> String {
        theme.codeFence.apply("```" + (info.split(separator: " ").first.map(String.init) ?? ""), at: level)
    }

    /// The dim closing fence.
    var codeFenceClosing: String { theme.codeFence.apply("```", at: level) }

    /// One line of code, verbatim.
    func codeLine(_ line: String) -> String { theme.codeLine.apply(line, at: level) }

    private func codeLines(_ literal: String) -> [String] {
        var lines = literal.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    // MARK: Tables

    /// Column widths from the header and the first `tableWidthRows` body rows, shrunk to fit `width`.
    func columnWidths(_ table: MarkdownTable) -> [Int] { columnWidths(table, width: proseWidth) }

    private func columnWidths(_ table: MarkdownTable, width: Int) -> [Int] {
        let columns = table.alignments.count
        var natural = [Int](repeating: 1, count: columns)
        for row in [table.header] + table.rows.prefix(Self.tableWidthRows) {
            for (column, cell) in row.prefix(columns).enumerated() {
                let cellWidth = wrapper.wrap(runs(cell, style: .plain), width: Int.max / 2).map(\.width).max() ?? 0
                natural[column] = max(natural[column], cellWidth)
            }
        }
        var available = width - (3 * columns + 1)
        guard natural.reduce(0, +) > available else { return natural }
        // Water-filling: narrow columns keep their width, the rest share what is left equally.
        var widths = natural
        var open = Array(0..<columns).sorted { natural[$0] < natural[$1] }
        while !open.isEmpty {
            let share = max(available / open.count, 3)
            let column = open.removeFirst()
            widths[column] = min(natural[column], share)
            available -= widths[column]
        }
        return widths
    }

    /// The top border, header row and header separator.
    func tableOpening(_ table: MarkdownTable, widths: [Int]) -> [String] {
        [border(widths, unicode ? ("┌", "┬", "┐") : ("+", "+", "+"))]
            + rowLines(table.header, table: table, widths: widths, style: theme.tableHeader)
            + [border(widths, unicode ? ("├", "┼", "┤") : ("+", "+", "+"))]
    }

    /// The lines of one body row.
    func tableRow(_ row: [[MarkdownInline]], table: MarkdownTable, widths: [Int]) -> [String] {
        rowLines(row, table: table, widths: widths, style: .plain)
    }

    /// The bottom border.
    func tableClosing(widths: [Int]) -> String {
        border(widths, unicode ? ("└", "┴", "┘") : ("+", "+", "+"))
    }

    private func border(_ widths: [Int], _ corners: (String, String, String)) -> String {
        let horizontal = unicode ? "─" : "-"
        let segments = widths.map { String(repeating: horizontal, count: $0 + 2) }
        return theme.tableBorder.apply(corners.0 + segments.joined(separator: corners.1) + corners.2, at: level)
    }

    private func rowLines(_ row: [[MarkdownInline]], table: MarkdownTable, widths: [Int], style: TextStyle) -> [String] {
        let cells = widths.indices.map { column in
            wrapper.wrap(runs(column < row.count ? row[column] : [], style: style), width: widths[column])
        }
        let height = cells.map(\.count).max() ?? 1
        let bar = theme.tableBorder.apply(unicode ? "│" : "|", at: level)
        return (0..<height).map { lineIndex in
            var line = bar
            for (column, cell) in cells.enumerated() {
                let piece = lineIndex < cell.count ? cell[lineIndex] : WrappedLine(text: "", width: 0)
                let slack = max(widths[column] - piece.width, 0)
                let left: Int
                switch table.alignments[column] {
                case .right: left = slack
                case .center: left = slack / 2
                case .left, .none: left = 0
                }
                line += " " + String(repeating: " ", count: left) + piece.text
                    + String(repeating: " ", count: slack - left) + " " + bar
            }
            return line
        }
    }

    // MARK: Inlines

    /// Flattens inline content into styled runs, applying emphasis, code, links and images.
    func runs(_ inlines: [MarkdownInline], style: TextStyle, link: String? = nil) -> [StyledRun] {
        var output: [StyledRun] = []
        for inline in inlines {
            switch inline {
            case .text(let text):
                output.append(StyledRun(text: text, style: style, link: link))
            case .code(let code):
                output.append(StyledRun(text: level == .plain ? "`\(code)`" : code, style: merged(style, theme.inlineCode), link: link))
            case .emphasis(let children):
                var inner = style
                inner.italic = true
                output += runs(children, style: inner, link: link)
            case .strong(let children):
                var inner = style
                inner.bold = true
                output += runs(children, style: inner, link: link)
            case .strikethrough(let children):
                var inner = style
                inner.strike = true
                let marker = level == .plain ? [StyledRun(text: "~~", style: style, link: link)] : []
                output += marker + runs(children, style: inner, link: link) + marker
            case .link(let url, let children):
                output += linkRuns(url: url, children: children, style: style)
            case .image(let url, let children):
                let alt = plainText(children)
                output.append(StyledRun(text: "[image: \(alt)]", style: merged(style, theme.linkDetail), link: link))
                if !url.isEmpty { output.append(StyledRun(text: " " + url, style: merged(style, theme.linkDetail), link: link)) }
            case .html(let html):
                output.append(StyledRun(text: html, style: merged(style, theme.html), link: link))
            case .softBreak:
                output.append(StyledRun(text: " ", style: style, link: link))
            case .lineBreak:
                output.append(StyledRun(text: "", style: style, isBreak: true))
            }
        }
        return output
    }

    private func linkRuns(url: String, children: [MarkdownInline], style: TextStyle) -> [StyledRun] {
        let text = plainText(children)
        let linkable = hyperlinks && LinkPolicy.isLinkable(url)
        let inner = runs(children, style: merged(style, theme.link), link: linkable ? url : nil)
        if LinkPolicy.textShowsURL(text, url) || url.isEmpty { return inner }
        let detail = linkable ? (LinkPolicy.host(of: url) ?? url) : url
        return inner + [StyledRun(text: " (\(detail))", style: merged(style, theme.linkDetail))]
    }

    private func merged(_ base: TextStyle, _ overlay: TextStyle) -> TextStyle {
        var style = base
        style.bold = style.bold || overlay.bold
        style.dim = style.dim || overlay.dim
        style.italic = style.italic || overlay.italic
        style.underline = style.underline || overlay.underline
        style.strike = style.strike || overlay.strike
        style.color = overlay.color ?? style.color
        return style
    }

    /// The text of inline content without any styling.
    func plainText(_ inlines: [MarkdownInline]) -> String {
        inlines.map { inline -> String in
            switch inline {
            case .text(let text), .code(let text), .html(let text): return text
            case .emphasis(let children), .strong(let children), .strikethrough(let children),
                 .link(_, let children), .image(_, let children): return plainText(children)
            case .softBreak, .lineBreak: return " "
            }
        }.joined()
    }
}
