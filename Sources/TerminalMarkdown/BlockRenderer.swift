import Markdown

/// Renders parsed Markdown blocks to terminal lines at a given width.
///
/// Prose is hard-wrapped at `width − 1` columns so the renderer always knows how many rows a line takes; code
/// lines keep their tabs and are cut at the same width with a visible continuation mark. Every block is rendered independently of the blocks around it, which is what lets
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
    /// Code blocks keep their ``` fences on a terminal too (they always do without styles).
    var showsFences = false
    /// How the terminal counts columns.
    var widthModel = WidthModel.grapheme
    /// List nesting the rendered blocks sit at (it picks the bullet); above 0 inside a streamed list item.
    var depth = 0

    /// Body rows after which a streamed table freezes its column widths and commits rows (later rows wrap inside
    /// those widths); a whole render measures every row, so only longer tables can stream differently.
    static let tableWidthRows = 64

    /// Creates a renderer; `hyperlinks` is ignored when `level` is plain.
    init(width: Int, level: StyleLevel, unicode: Bool, hyperlinks: Bool, theme: MarkdownTheme = .standard) {
        self.width = width
        self.level = level
        self.unicode = unicode
        self.hyperlinks = hyperlinks && level != .plain
        self.theme = theme
    }

    private var wrapper: LineWrapper { LineWrapper(level: level, hyperlinks: hyperlinks, widthModel: widthModel) }
    /// True where a line as wide as the window does not fit on one row: an Emacs window keeps its last column for
    /// the continuation glyph. A terminal holds a full-width line on its row (the wrap waits for the next character),
    /// so there prose and code take every column.
    var reservesLastColumn = false
    /// The columns a line of prose or code takes at most.
    var proseWidth: Int { max(width - (reservesLastColumn ? 1 : 0), 1) }

    // MARK: Blocks

    /// The lines of `blocks` separated by blank lines, as a whole document renders them; a block that shows
    /// nothing (an HTML comment) takes no blank line either.
    func lines(for blocks: [MarkdownBlock]) -> [String] {
        var output: [String] = []
        var footnote: Int?
        for block in blocks {
            let lines = lines(for: block, afterFootnote: footnote)
            footnote = footnoteIndent(after: block, previous: footnote)
            if lines.isEmpty { continue }
            if !output.isEmpty { output.append("") }
            output += lines
        }
        return output
    }

    /// The lines of top-level `block`; `footnote` is the text indent of the footnote defined just before it, whose
    /// next paragraph an indented code block is.
    func lines(for block: MarkdownBlock, afterFootnote footnote: Int?) -> [String] {
        guard case .indentedCode(let literal) = block, let footnote else { return lines(for: block) }
        let padding = String(repeating: " ", count: footnote)
        return childLines(
            MarkdownParser.parse(literal, depth: 1).map(\.block), width: proseWidth - footnote, depth: depth,
            inListItem: false
        ).map { $0.isEmpty ? "" : padding + $0 }
    }

    /// The footnote text indent in force after top-level `block`: a footnote definition's (that of its last note),
    /// still the same after a paragraph continuing it, nil after anything else.
    func footnoteIndent(after block: MarkdownBlock, previous: Int?) -> Int? {
        switch block {
        case .paragraph(let inlines):
            guard let last = Footnotes.definitions(inlines)?.last else { return nil }
            return DisplayWidth.of(footnoteMarker(last.label), model: widthModel) + 1
        case .indentedCode: return previous
        default: return nil
        }
    }

    /// The lines of one top-level block.
    func lines(for block: MarkdownBlock) -> [String] { lines(for: block, width: proseWidth, depth: depth) }

    private func lines(for block: MarkdownBlock, width: Int, depth: Int = 0) -> [String] {
        switch block {
        case .paragraph(let inlines):
            if let definitions = Footnotes.definitions(inlines) {
                return definitions.flatMap { definition in
                    let marker = footnoteMarker(definition.label)
                    return itemLines(
                        marker: theme.footnote.apply(marker, at: level),
                        markerWidth: DisplayWidth.of(marker, model: widthModel),
                        blocks: [.paragraph(definition.text)], depth: depth, width: width)
                }
            }
            return wrapper.wrappedText(runs(inlines, style: .plain), width: width)
        case .heading(let level, let inlines):
            let marks =
                Self.headingMarkers.indices.contains(level - 1)
                ? Self.headingMarkers[level - 1] : String(repeating: "#", count: max(level, 0)) + " "
            // Made empty at its full size: an array begun as a literal and reserved after is copied once more.
            var runs: [StyledRun] = []
            runs.reserveCapacity(1 + 2 * inlines.count)
            runs.append(StyledRun(text: marks, style: theme.headingMarker))
            appendRuns(inlines, style: theme.heading(level), link: nil, to: &runs)
            return wrapper.wrappedText(runs, width: width)
        case .codeBlock(let info, let literal):
            return codeBlockLines(info: info, literal: literal, width: width)
        case .indentedCode(let literal):
            return codeBlockLines(info: "", literal: literal, width: width)
        case .html(let literal):
            return HTMLMarkup.blockLines(literal).flatMap { line -> [String] in
                // An HTML line too wide is cut as a code line is, in the HTML colour.
                guard line.isSummary else {
                    return codeLine(line.text, highlighter: nil, advance: false, width: width, style: theme.html)
                }
                let marker = StyledRun(text: unicode ? "▸ " : "> ", style: theme.listMarker)
                return wrapper.wrap([marker, StyledRun(text: line.text, style: theme.tableHeader)], width: width).map(
                    \.text)
            }

        case .thematicBreak:
            return [styledRule(columns: min(width, 60), style: theme.rule)]
        case .blockQuote(let children):
            let alert = Alert(children)
            let bar = quoteBar(alert?.kind)
            let body = childLines(alert?.blocks ?? children, width: width - 2, depth: depth, inListItem: false)
            var output: [String] = []
            output.reserveCapacity(1 + body.count)
            if let alert { output.append(alertLabel(alert.kind)) }
            let barAndSpace = bar + " "
            for line in body { output.append(line.isEmpty ? bar : barAndSpace + line) }
            return output
        case .list(let list):
            var output: [String] = []
            for (index, item) in list.items.enumerated() {
                output += listItemLines(item, number: list.start.map { $0 + index }, depth: depth, width: width)
            }
            return output
        case .table(let table):
            return tableLines(table, width: width)
        }
    }

    /// A heading's `#` marks and the space after them, by level (cmark-gfm's 1 to 6).
    private static let headingMarkers = (1...6).map { String(repeating: "#", count: $0) + " " }

    /// The bar in front of a block quote's rows, coloured like its alert when it is one.
    func quoteBar(_ alert: Alert.Kind?) -> String {
        let style = alert.map { theme.alert($0) } ?? theme.quoteBar
        return style.apply(unicode ? "│" : ">", at: level)
    }

    /// The first row of an alert: its bar and its title (`Note`, `Warning` …) in the alert's colour.
    func alertLabel(_ kind: Alert.Kind) -> String {
        var title = theme.alert(kind)
        title.bold = true
        title.dim = false
        return quoteBar(kind) + " " + title.apply(kind.title, at: level)
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
            } else if index == 0 {
                output = lines(for: child, width: width, depth: depth)
            } else {
                output.append("")
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
        var item = item
        if item.task == nil, let (done, blocks) = Self.taskBox(item.blocks) {
            item.task = done
            item.blocks = blocks
        }
        let marker = listItemMarker(number: number, task: item.task, depth: depth)
        return itemLines(
            marker: marker.text, markerWidth: marker.width, blocks: item.blocks, depth: depth, width: width)
    }

    /// What goes in front of a top-level list item's rows: the styled marker before its first row (followed by a
    /// space when the row has text) and the padding before its later rows; `number` is nil for bullet items and
    /// `task` the state of a task item's box.
    func listItemPrefix(number: Int?, task: Bool?) -> (marker: String, padding: String) {
        let marker = listItemMarker(number: number, task: task, depth: depth)
        return (marker.text, Self.itemPadding(markerWidth: marker.width))
    }

    /// An item's bullet (by nesting depth) or number, and a task's box, styled, with the columns it takes.
    private func listItemMarker(number: Int?, task: Bool?, depth: Int) -> (text: String, width: Int) {
        let marks = unicode ? Self.unicodeMarks : Self.asciiMarks
        let marker =
            number.map { ListMark(ascii: Self.orderedMarker($0)) } ?? marks.bullets[depth % marks.bullets.count]
        // An item without a box is its styled marker alone, one string; a box is assembled as bytes after it.
        guard let done = task else { return (theme.listMarker.apply(marker.text, at: level), marker.width) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(marker.text.utf8.count + 32)
        theme.listMarker.append(at: level, to: &bytes) { $0 += marker.text.utf8 }
        let box = done ? marks.done : marks.open
        bytes.append(UInt8(ascii: " "))
        (done ? theme.taskDone : theme.taskOpen).append(at: level, to: &bytes) { $0 += box.text.utf8 }
        return (String(decoding: bytes, as: UTF8.self), marker.width + 1 + box.width)
    }

    /// A list mark's text and the columns it takes, measured once: each mark is a single code point or ASCII, which
    /// both width models count alike, and a space between marks keeps their widths apart.
    private struct ListMark {
        var text: String
        var width: Int

        init(_ text: String) {
            self.text = text
            width = DisplayWidth.of(text, model: .grapheme)
        }

        init(ascii text: String) {
            self.text = text
            width = text.utf8.count
        }
    }

    /// The bullets by nesting depth and the task boxes, from Unicode or ASCII.
    private static let unicodeMarks = (
        bullets: ["•", "◦", "▪"].map { ListMark($0) }, done: ListMark("☑"), open: ListMark("☐")
    )
    private static let asciiMarks = (
        bullets: ["-", "*", "+"].map { ListMark(ascii: $0) }, done: ListMark(ascii: "[x]"), open: ListMark(ascii: "[ ]")
    )

    /// The spaces in front of an item's later rows: as wide as its marker and the space after it.
    private static func itemPadding(markerWidth: Int) -> String { String(repeating: " ", count: markerWidth + 1) }

    /// An ordered item's number and period, right-aligned in two digits so that items 9 and 10 start their text in
    /// the same column; a fixed width because a streamed list prints its first items before it knows its last.
    private static func orderedMarker(_ number: Int) -> String {
        number >= 0 && number < 10 ? " \(number)." : "\(number)."
    }

    /// The state and remaining blocks of an item whose text starts with `[ ]` or `[x]`, which cmark-gfm 0.29's
    /// task list extension leaves as text inside block quotes.
    private static func taskBox(_ blocks: [MarkdownBlock]) -> (done: Bool, blocks: [MarkdownBlock])? {
        // A box starts with "[": the first byte rules out nearly every item before its text is read as characters.
        guard case .paragraph(var inlines)? = blocks.first, case .text(let text)? = inlines.first,
            text.utf8.first == UInt8(ascii: "[")
        else { return nil }
        let box = text.prefix(4)
        guard ["[ ] ", "[x] ", "[X] "].contains(box) else { return nil }
        inlines[0] = .text(String(text.dropFirst(4)))
        return (box != "[ ] ", [.paragraph(inlines)] + blocks.dropFirst())
    }

    /// Blocks after a marker, continuation lines indented to the text after it.
    private func itemLines(marker: String, markerWidth: Int, blocks: [MarkdownBlock], depth: Int, width: Int)
        -> [String]
    {
        let padding = Self.itemPadding(markerWidth: markerWidth)
        let body = childLines(blocks, width: width - padding.utf8.count, depth: depth + 1, inListItem: true)
        guard let first = body.first else { return [marker] }
        var firstRow = ""
        firstRow.reserveCapacity(marker.utf8.count + 1 + first.utf8.count)
        firstRow += marker
        firstRow += " "
        firstRow += first
        var output: [String] = []
        output.reserveCapacity(body.count)
        output.append(firstRow)
        for line in body.dropFirst() { output.append(line.isEmpty ? "" : padding + line) }
        return output
    }

    /// A footnote's label as superscript digits (`¹²`), or in brackets when it is not a number or the terminal
    /// is not UTF-8.
    private func footnoteMarker(_ label: String) -> String {
        guard unicode, !label.isEmpty, label.allSatisfy({ $0.isASCII && $0.isNumber }),
            let marker = HTMLMarkup.script(label, superscript: true)
        else { return "[\(label)]" }
        return marker
    }

    // MARK: Code

    /// A highlighter for a fence's language when colours are on, nil for plain code.
    func codeHighlighter(info: String) -> CodeHighlighter? {
        guard level == .color else { return nil }
        return CodeHighlighter(language: Self.language(info))
    }

    /// A fence's language: the first word of its info string.
    private static func language(_ info: String) -> String {
        // An ASCII info string's characters are its bytes (no CR can reach it): split without forming graphemes.
        if info.utf8.allSatisfy({ $0 < 0x80 }) {
            let word = info.utf8.drop { $0 == UInt8(ascii: " ") }.prefix { $0 != UInt8(ascii: " ") }
            return String(Substring(word))
        }
        let start = info.firstIndex { $0 != " " } ?? info.endIndex
        return String(info[start..<(info[start...].firstIndex(of: " ") ?? info.endIndex)])
    }

    /// The first line of a code block: the dim fence naming the language, or with fences hidden just the dim
    /// language (nothing for an unlabelled block). Output without colours keeps its fences (so it stays Markdown,
    /// and under `NO_COLOR` a block's ends are marked).
    func codeFenceOpening(info: String) -> [String] {
        let language = Self.language(info)
        if showsFences || level != .color { return [theme.codeFence.apply("```" + language, at: level)] }
        return language.isEmpty ? [] : [theme.codeLabel.apply(language, at: level)]
    }

    /// The dim closing fence, or with fences hidden (only with colours) a short dim rule, so that where the code
    /// ends is plain also when the text after it has the code's indentation (in a list item or a quote).
    var codeFenceClosing: [String] {
        [theme.codeFence.apply(showsFences || level != .color ? "```" : unicode ? "╶──" : "---", at: level)]
    }

    /// One line of code, coloured by `highlighter` (which moves past the line unless `advance` is false).
    func codeLine(_ line: String, highlighter: CodeHighlighter?, advance: Bool = true) -> [String] {
        codeLine(line, highlighter: highlighter, advance: advance, width: proseWidth)
    }

    /// One line of code as rows of at most `width` columns: on a terminal, a line too wide is cut and each further
    /// row starts with a dim `↪ `, so the marker is the only thing added and a copied line is easy to mend; without
    /// styles (a pipe, a file, Emacs) the line stays whole. A row ends after a space or a separator (`,;)]}`) when
    /// one is in its last quarter, so a token (`#FFFFFF`, `7000`) is not split; else between characters.
    private func codeLine(
        _ line: String, highlighter: CodeHighlighter?, advance: Bool, width: Int, style: TextStyle? = nil
    ) -> [String] {
        let highlighted = highlighter?.byteSpans(line, advance: advance)
        var line = line
        guard level != .plain, DisplayWidth.of(line, model: widthModel) > width else {
            // One row, its spans styled from the line's bytes into one buffer (no string per span, no join).
            return line.withUTF8 { text in
                var row: [UInt8] = []
                row.reserveCapacity(text.count + 16 * (highlighted?.count ?? 1))
                guard let highlighted else {
                    (style ?? theme.codeLine).append(at: level, to: &row) { $0.append(contentsOf: text) }
                    return [String(assembledUTF8: row.span)]
                }
                for span in highlighted {
                    theme.code.style(for: span.kind).append(at: level, to: &row) {
                        $0.append(contentsOf: UnsafeBufferPointer(rebasing: text[span.bytes]))
                    }
                }
                return [String(assembledUTF8: row.span)]
            }
        }
        let spans: [(text: Substring, style: TextStyle)] = line.withUTF8 { text in
            highlighted?.map {
                (
                    Substring(decoding: UnsafeBufferPointer(rebasing: text[$0.bytes]), as: UTF8.self),
                    theme.code.style(for: $0.kind)
                )
            } ?? [(Substring(decoding: text, as: UTF8.self), style ?? theme.codeLine)]
        }
        let markerWidth = 2
        // Each character with the span it came from; then the indices where a row after the first starts.
        let characters = spans.enumerated().flatMap { index, span in span.text.map { ($0, index) } }
        var starts: [Int] = []
        var column = 0
        var candidate: (index: Int, column: Int)?
        var index = 0
        while index < characters.count {
            let character = characters[index].0
            let next = DisplayWidth.advance(from: column, over: character, model: widthModel)
            let rowStart = starts.isEmpty ? 0 : markerWidth
            if next > width && column > rowStart {
                let cut =
                    candidate.flatMap { $0.column >= rowStart + (width - rowStart) * 3 / 4 ? $0.index : nil } ?? index
                starts.append(cut)
                candidate = nil
                column = characters[cut..<index].reduce(markerWidth) {
                    DisplayWidth.advance(from: $0, over: $1.0, model: widthModel)
                }
                continue
            }
            column = next
            index += 1
            if character == " " || ",;)]}".contains(character) { candidate = (index, column) }
        }
        let marker = theme.codeFence.apply(unicode ? "↪ " : "> ", at: level)
        let bounds = [0] + starts + [characters.count]
        return zip(bounds, bounds.dropFirst()).enumerated().map { row, range in
            var text = row == 0 ? "" : marker
            var position = range.0
            while position < range.1 {
                let span = characters[position].1
                var piece = ""
                while position < range.1, characters[position].1 == span {
                    piece.append(characters[position].0)
                    position += 1
                }
                text += spans[span].style.apply(piece, at: level)
            }
            return text
        }
    }

    private func codeBlockLines(info: String, literal: String, width: Int) -> [String] {
        let highlighter = codeHighlighter(info: info)
        let source = Self.lines(of: literal)
        var lines: [String] = []
        lines.reserveCapacity(source.count + 2)
        lines += codeFenceOpening(info: info)
        for line in source {
            lines.append(contentsOf: codeLine(line, highlighter: highlighter, advance: true, width: width))
        }
        lines.append(contentsOf: codeFenceClosing)
        return lines
    }

    /// The lines of `text` (sanitised: no CR can join a newline into one character), without the empty one after a
    /// final newline; split by bytes.
    static func lines(of text: String) -> [String] {
        var text = text
        return text.withUTF8 { bytes in
            var lines: [String] = []
            lines.reserveCapacity(bytes.count { $0 == 0x0A } + 1)
            var start = 0
            while start < bytes.count {
                let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
                lines.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
                start = end + 1
            }
            return lines
        }
    }

    // MARK: Tables

    /// Column widths from the header and every body row; words up to `unsplitWordWidth` columns and numbers are
    /// never split, and when even that does not fit the result is empty: the table is laid out as records.
    func columnWidths(_ table: MarkdownTable) -> [Int] {
        columnWidths(tableCells(table, headerStyle: .plain), width: proseWidth)
    }

    /// The runs of the header's cells and then of each body row's, as `cellRuns(_:columns:style:)` makes them.
    private func tableCells(_ table: MarkdownTable, headerStyle: TextStyle) -> [[[StyledRun]]] {
        let columns = table.alignments.count
        var cells: [[[StyledRun]]] = []
        cells.reserveCapacity(1 + table.rows.count)
        cells.append(cellRuns(table.header, columns: columns, style: headerStyle))
        for row in table.rows { cells.append(cellRuns(row, columns: columns, style: .plain)) }
        return cells
    }

    /// The runs of a row's first `columns` cells in `style`, no runs for a cell the row lacks: each cell's runs are
    /// made once for both measuring and laying out the table.
    private func cellRuns(_ row: [[MarkdownInline]], columns: Int, style: TextStyle) -> [[StyledRun]] {
        (0..<columns).map { runs($0 < row.count ? row[$0] : [], style: style) }
    }

    /// `columnWidths(_:)` from the runs of the cells of every row, the header's first (a style does not change a
    /// width).
    private func columnWidths(_ cells: [[[StyledRun]]], width: Int) -> [Int] {
        let columns = cells[0].count
        // Each column's natural width, longest word and least width, measured in one array.
        var measures = [(natural: Int, longestWord: Int, minimum: Int)](repeating: (1, 1, 1), count: columns)
        for row in cells {
            for (column, cellRuns) in row.enumerated() {
                let words = wordWidths(of: Self.text(of: cellRuns))
                measures[column].natural = max(measures[column].natural, wrapper.widestLine(cellRuns))
                measures[column].longestWord = max(measures[column].longestWord, words.longest)
                measures[column].minimum = max(measures[column].minimum, words.least)
            }
        }
        let natural = measures.map(\.natural)
        let available = width - (3 * columns + 1)
        guard natural.reduce(0, +) > available else { return natural }
        let longestWord = measures.map(\.longestWord)
        let minimum = measures.map(\.minimum)
        guard minimum.reduce(0, +) <= available else { return [] }
        // Long words (names, paths) stay whole too when that leaves every column what it wants or at least a
        // quarter of it: a column of long unbreakable code must not squeeze a column of prose to a sliver.
        if longestWord.reduce(0, +) <= available {
            let shared = Self.shared(available, minimum: longestWord, natural: natural)
            if shared.indices.allSatisfy({ shared[$0] >= min(natural[$0], max(minimum[$0], natural[$0] / 4)) }) {
                return shared
            }
        }
        return Self.shared(available, minimum: minimum, natural: natural)
    }

    /// `available` columns shared out by content: every column gets its minimum, and what is left is shared in
    /// proportion to the columns' natural widths, a column whose share covers all it wants taking just that.
    private static func shared(_ available: Int, minimum: [Int], natural: [Int]) -> [Int] {
        var widths = minimum
        var spare = available - minimum.reduce(0, +)
        var open = minimum.indices.filter { minimum[$0] < natural[$0] }
        while spare > 0, !open.isEmpty {
            let weight = open.reduce(0) { $0 + natural[$1] }
            if let satisfied = open.firstIndex(where: { (natural[$0] - widths[$0]) * weight <= spare * natural[$0] }) {
                let column = open.remove(at: satisfied)
                spare -= natural[column] - widths[column]
                widths[column] = natural[column]
                continue
            }
            var given = 0
            for column in open {
                let grant = spare * natural[column] / weight
                widths[column] += grant
                given += grant
            }
            spare -= given
            for column in open.sorted(by: { natural[$0] - widths[$0] > natural[$1] - widths[$1] }) where spare > 0 {
                widths[column] += 1
                spare -= 1
            }
        }
        return widths
    }

    /// A cell's text without its hard breaks; a cell of one run is that run's string, not a copy.
    private static func text(of cellRuns: [StyledRun]) -> String {
        if cellRuns.count == 1 && !cellRuns[0].isBreak { return cellRuns[0].text }
        var text = ""
        for run in cellRuns where !run.isBreak { text += run.text }
        return text
    }

    /// The columns of the widest word of a cell's text (words are between spaces, tabs and newlines), and the
    /// fewest its column may have so that no word is split that must stay whole; 0 for a cell without words. ASCII
    /// text is split and measured by bytes, which is the same split without forming grapheme clusters.
    private func wordWidths(of text: String) -> (longest: Int, least: Int) {
        var longest = 0
        var least = 0
        guard Self.isASCII(Substring(text)) else {
            for word in text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }) {
                let width =
                    Self.isASCII(word) ? Self.asciiWidth(word) : DisplayWidth.of(String(word), model: widthModel)
                longest = max(longest, width)
                least = max(least, Self.leastWidth(word, width: width))
            }
            return (longest, least)
        }
        let measure = { (bytes: UnsafeBufferPointer<UInt8>) -> (longest: Int, least: Int) in
            var longest = 0
            var least = 0
            var wordStart: Int?
            var width = 0
            for index in 0...bytes.count {
                let byte = index == bytes.count ? 0x20 : bytes[index]
                if byte == 0x20 || byte == 0x09 || byte == 0x0A {
                    if let start = wordStart {
                        longest = max(longest, width)
                        least = max(
                            least,
                            Self.leastWidth(
                                Substring(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self),
                                width: width))
                    }
                    wordStart = nil
                    width = 0
                } else {
                    if wordStart == nil { wordStart = index }
                    // One column per printable byte, as `asciiWidth` counts.
                    if byte >= 0x20 && byte != 0x7F { width += 1 }
                }
            }
            return (longest, least)
        }
        return text.utf8.withContiguousStorageIfAvailable(measure) ?? Array(text.utf8).withUnsafeBufferPointer(measure)
    }

    /// The columns a word of `width` columns needs in its column: all of them when it may not be split (it is
    /// short, or a number), else `unsplitWordWidth`.
    private static func leastWidth(_ word: @autoclosure () -> Substring, width: Int) -> Int {
        width <= unsplitWordWidth || isNumber(word()) ? width : unsplitWordWidth
    }

    private static func isASCII(_ text: Substring) -> Bool {
        let allASCII = { (bytes: UnsafeBufferPointer<UInt8>) in bytes.allSatisfy { $0 < 0x80 } }
        return text.utf8.withContiguousStorageIfAvailable(allASCII) ?? text.utf8.allSatisfy { $0 < 0x80 }
    }

    /// The columns of ASCII text without tabs: one per printable byte.
    private static func asciiWidth(_ text: Substring) -> Int {
        text.utf8.reduce(0) { $0 + ($1 >= 0x20 && $1 != 0x7F ? 1 : 0) }
    }

    /// Words longer than this may be split across lines of a cell; shorter ones never are.
    static let unsplitWordWidth = 16

    /// Whether `word` reads as one number or quantity (digits with separators, a sign, a unit or a percent sign).
    private static func isNumber(_ word: Substring) -> Bool {
        word.contains(where: \.isNumber)
            && word.allSatisfy { $0.isNumber || ".,:+-−%$€£¥_'/".contains($0) || $0.isLetter && word.count <= 8 }
    }

    /// The top border, header row and header separator; for records, the rule above the first record.
    func tableOpening(_ table: MarkdownTable, widths: [Int]) -> [String] {
        tableOpening(table, widths: widths, width: proseWidth)
    }

    /// The lines of one body row; for records, one `Column: value` entry per column and a rule below.
    func tableRow(_ row: [[MarkdownInline]], table: MarkdownTable, widths: [Int]) -> [String] {
        tableRow(row, table: table, widths: widths, width: proseWidth)
    }

    /// The bottom border; nothing for records (each ends with its rule).
    func tableClosing(widths: [Int]) -> [String] {
        widths.isEmpty ? [] : [bottomBorder(widths)]
    }

    /// The border under a table's last row.
    private func bottomBorder(_ widths: [Int]) -> String { border(widths, unicode ? ("└", "┴", "┘") : ("+", "+", "+")) }

    private func tableLines(_ table: MarkdownTable, width: Int) -> [String] {
        let cells = tableCells(table, headerStyle: theme.tableHeader)
        let widths = columnWidths(cells, width: width)
        guard !widths.isEmpty else {
            return [recordRule(width: width)]
                + table.rows.flatMap { tableRow($0, table: table, widths: [], width: width) }
        }
        let bar = tableBar
        // The borders and a line a row, more only where a cell wraps.
        var lines: [String] = []
        lines.reserveCapacity(3 + cells.count)
        appendTableOpening(header: cells[0], table: table, widths: widths, bar: bar, to: &lines)
        for row in cells.dropFirst() { lines += rowLines(row, table: table, widths: widths, bar: bar) }
        lines.append(bottomBorder(widths))
        return lines
    }

    private func tableOpening(_ table: MarkdownTable, widths: [Int], width: Int) -> [String] {
        guard !widths.isEmpty else { return [recordRule(width: width)] }
        let header = cellRuns(table.header, columns: table.alignments.count, style: theme.tableHeader)
        var lines: [String] = []
        lines.reserveCapacity(3)
        appendTableOpening(header: header, table: table, widths: widths, bar: tableBar, to: &lines)
        return lines
    }

    private func appendTableOpening(
        header: [[StyledRun]], table: MarkdownTable, widths: [Int], bar: [UInt8], to lines: inout [String]
    ) {
        lines.append(border(widths, unicode ? ("┌", "┬", "┐") : ("+", "+", "+")))
        lines.append(contentsOf: rowLines(header, table: table, widths: widths, bar: bar))
        lines.append(border(widths, unicode ? ("├", "┼", "┤") : ("+", "+", "+")))
    }

    private func tableRow(_ row: [[MarkdownInline]], table: MarkdownTable, widths: [Int], width: Int) -> [String] {
        guard !widths.isEmpty else { return recordLines(row, table: table, width: width) + [recordRule(width: width)] }
        let cells = cellRuns(row, columns: table.alignments.count, style: .plain)
        return rowLines(cells, table: table, widths: widths, bar: tableBar)
    }

    /// The styled bar between cells, made once for a table's rows.
    private var tableBar: [UInt8] {
        var bar: [UInt8] = []
        theme.tableBorder.append(at: level, to: &bar) { $0 += (unicode ? "│" : "|").utf8 }
        return bar
    }

    private func recordRule(width: Int) -> String { styledRule(columns: min(width, 20), style: theme.tableBorder) }

    /// A horizontal rule of `columns` columns in `style`; empty when a block deep in quotes and items of a narrow
    /// window has no columns left.
    private func styledRule(columns: Int, style: TextStyle) -> String {
        var line: [UInt8] = []
        style.append(at: level, to: &line) { appendRule(columns: columns, to: &$0) }
        return String(decoding: line, as: UTF8.self)
    }

    /// Appends `columns` horizontal rule marks (none for 0 or fewer), copied from a prebuilt stretch in pieces.
    private func appendRule(columns: Int, to line: inout [UInt8]) {
        let rule = unicode ? Self.unicodeRule : Self.asciiRule
        var remaining = max(columns, 0) * (unicode ? 3 : 1)
        while remaining > 0 {
            let count = min(remaining, rule.count)
            rule.withUnsafeBufferPointer { line.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<count])) }
            remaining -= count
        }
    }

    /// A row as `Header: value` entries; an entry that wraps continues two columns in.
    private func recordLines(_ row: [[MarkdownInline]], table: MarkdownTable, width: Int) -> [String] {
        table.header.indices.flatMap { column -> [String] in
            let label =
                runs(table.header[column], style: theme.tableHeader) + [StyledRun(text: ":", style: theme.tableHeader)]
            let value = column < row.count ? runs(row[column], style: .plain) : []
            let lines = wrapper.wrap(label + [StyledRun(text: " ", style: .plain)] + value, width: max(width - 2, 1))
            return lines.enumerated().map { $0.offset == 0 ? $0.element.text : "  " + $0.element.text }
        }
    }

    /// A horizontal border from the corner and junction pieces `corners` (left, between columns, right).
    private func border(_ widths: [Int], _ corners: (String, String, String)) -> String {
        var line: [UInt8] = []
        line.reserveCapacity((widths.reduce(0, +) + 2 * widths.count + 1) * (unicode ? 3 : 1) + 8)
        var (left, junction, right) = corners
        theme.tableBorder.append(at: level, to: &line) { line in
            left.withUTF8 { line.append(contentsOf: $0) }
            for (index, width) in widths.enumerated() {
                if index > 0 { junction.withUTF8 { line.append(contentsOf: $0) } }
                appendRule(columns: width + 2, to: &line)
            }
            right.withUTF8 { line.append(contentsOf: $0) }
        }
        return String(assembledUTF8: line.span)
    }

    /// The UTF-8 of a stretch of horizontal rule (borders, record rules, thematic breaks), copied in pieces.
    private static let unicodeRule = Array(String(repeating: "─", count: 64).utf8)
    private static let asciiRule = Array(String(repeating: "-", count: 64).utf8)

    /// The lines of a row whose cells have the runs `cellRuns`, each cell wrapped to its column's width.
    private func rowLines(_ cellRuns: [[StyledRun]], table: MarkdownTable, widths: [Int], bar: [UInt8]) -> [String] {
        let wrapper = wrapper
        // A cell of one short run (most cells) is styled straight into the row; the others are wrapped.
        let cells = widths.indices.map { column -> CellLines in
            let runs = cellRuns[column]
            if runs.count == 1, let width = wrapper.singleLineWidth(runs[0], width: widths[column]) {
                return .single(runs[0], width: width)
            }
            return .wrapped(wrapper.wrap(runs, width: widths[column]))
        }
        var height = 1
        for cell in cells { height = max(height, cell.count) }
        var lines: [String] = []
        lines.reserveCapacity(height)
        // One buffer for the row's lines, each copied once into its string.
        var line: [UInt8] = []
        line.reserveCapacity(widths.reduce(bar.count, +) + widths.count * (bar.count + 2) + LineWrapper.lineBytesHint)
        for lineIndex in 0..<height {
            line.removeAll(keepingCapacity: true)
            line += bar
            for (column, cell) in cells.enumerated() {
                let pieceWidth = lineIndex < cell.count ? cell.width(ofLine: lineIndex) : 0
                let slack = max(widths[column] - pieceWidth, 0)
                let left: Int
                switch table.alignments[column] {
                case .right: left = slack
                case .center: left = slack / 2
                case .left, .none: left = 0
                }
                line.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 1 + left))
                if lineIndex < cell.count {
                    switch cell {
                    case .single(let run, _): run.style.append(at: level, to: &line) { $0 += run.text.utf8 }
                    case .wrapped(let pieces): line += pieces[lineIndex].text.utf8
                    }
                }
                line.append(contentsOf: repeatElement(UInt8(ascii: " "), count: slack - left + 1))
                line += bar
            }
            lines.append(String(assembledUTF8: line.span))
        }
        return lines
    }

    /// A table cell laid out in its column: one run on one line, or wrapped lines.
    private enum CellLines {
        case single(StyledRun, width: Int)
        case wrapped([WrappedLine])

        var count: Int {
            switch self {
            case .single: 1
            case .wrapped(let lines): lines.count
            }
        }

        func width(ofLine index: Int) -> Int {
            switch self {
            case .single(_, let width): width
            case .wrapped(let lines): lines[index].width
            }
        }
    }

    // MARK: Inlines

    /// Flattens inline content into styled runs, applying emphasis, code, links and images.
    func runs(_ inlines: [MarkdownInline], style: TextStyle, link: String? = nil) -> [StyledRun] {
        var output: [StyledRun] = []
        // Room for a link's detail run, or a span's few runs, beside each inline: one buffer for most paragraphs.
        output.reserveCapacity(2 * inlines.count)
        appendRuns(inlines, style: style, link: link, to: &output)
        return output
    }

    /// `runs(_:style:link:)` appended to `output`, so nested spans add to one array instead of each building its own.
    private func appendRuns(_ inlines: [MarkdownInline], style: TextStyle, link: String?, to output: inout [StyledRun])
    {
        var keyDepth = 0
        var script: Bool?
        for inline in Footnotes.references(in: inlines) {
            switch inline {
            case .text(let text) where keyDepth > 0:
                output.append(
                    StyledRun(text: level == .plain ? "[\(text)]" : text, style: merged(style, theme.key), link: link))
            case .text(let text):
                let shown = script.flatMap { HTMLMarkup.script(text, superscript: $0) } ?? text
                output.append(StyledRun(text: shown, style: style, link: link))
            case .code(let code):
                // Without colours (a pipe, NO_COLOR) the backticks are inline code's only mark.
                output.append(
                    StyledRun(
                        text: level == .color ? code : "`\(code)`", style: merged(style, theme.inlineCode), link: link))
            case .emphasis(let children):
                var inner = style
                inner.italic = true
                appendRuns(children, style: inner, link: link, to: &output)
            case .strong(let children):
                var inner = style
                inner.bold = true
                appendRuns(children, style: inner, link: link, to: &output)
            case .strikethrough(let children):
                var inner = style
                inner.strike = true
                let marker = level == .plain ? [StyledRun(text: "~~", style: style, link: link)] : []
                output += marker
                appendRuns(children, style: inner, link: link, to: &output)
                output += marker
            case .link(let url, let children):
                appendLinkRuns(url: url, children: children, style: style, to: &output)
            case .image(let url, let children):
                let alt = plainText(children)
                output.append(StyledRun(text: "[image: \(alt)]", style: merged(style, theme.linkDetail), link: link))
                if !url.isEmpty {
                    output.append(StyledRun(text: " " + url, style: merged(style, theme.linkDetail), link: link))
                }
            case .html(let html):
                switch HTMLMarkup.tag(html) {
                case .comment: break
                case .lineBreak: output.append(StyledRun(text: "", style: style, isBreak: true))
                case .keyOpen: keyDepth += 1
                case .keyClose: keyDepth = max(keyDepth - 1, 0)
                case .subscriptOpen: script = false
                case .superscriptOpen: script = true
                case .subscriptClose, .superscriptClose: script = nil
                case .other: output.append(StyledRun(text: html, style: merged(style, theme.html), link: link))
                }
            case .footnoteReference(let label):
                output.append(StyledRun(text: footnoteMarker(label), style: merged(style, theme.footnote), link: link))
            case .softBreak:
                output.append(StyledRun(text: " ", style: style, link: link))
            case .lineBreak:
                output.append(StyledRun(text: "", style: style, isBreak: true))
            }
        }
    }

    private func appendLinkRuns(url: String, children: [MarkdownInline], style: TextStyle, to output: inout [StyledRun])
    {
        let linkable = hyperlinks && LinkPolicy.isLinkable(url)
        appendRuns(children, style: merged(style, theme.link), link: linkable ? url : nil, to: &output)
        if url.isEmpty { return }
        // Most link texts are one text node: that string is the plain text, without joining a copy.
        if case .text(let text)? = children.first, children.count == 1 {
            if LinkPolicy.textShowsURL(text, url) { return }
        } else if LinkPolicy.textShowsURL(plainText(children), url) {
            return
        }
        let detail = linkable ? (LinkPolicy.host(of: url) ?? url) : url
        output.append(StyledRun(text: " (\(detail))", style: merged(style, theme.linkDetail)))
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
                .link(_, let children), .image(_, let children):
                return plainText(children)
            case .footnoteReference(let label): return footnoteMarker(label)
            case .softBreak, .lineBreak: return " "
            }
        }.joined()
    }
}
