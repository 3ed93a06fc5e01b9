/// A block of a parsed Markdown document, as plain Swift values (the C nodes are freed right after parsing).
package enum MarkdownBlock: Equatable {
    case paragraph([MarkdownInline])
    case heading(level: Int, [MarkdownInline])
    case codeBlock(info: String, literal: String)
    /// Code indented four spaces rather than fenced; right after a footnote definition it is the footnote's next
    /// paragraph (GFM indents a footnote's later paragraphs, which CommonMark without footnotes reads as code).
    case indentedCode(String)
    case html(String)
    case thematicBreak
    case blockQuote([MarkdownBlock])
    case list(MarkdownList)
    case table(MarkdownTable)
}

/// An ordered or bullet list and its items.
package struct MarkdownList: Equatable {
    /// The first item's number, for ordered lists; nil for bullet lists.
    package var start: Int?
    package var items: [MarkdownListItem]

    package init(start: Int?, items: [MarkdownListItem]) {
        self.start = start
        self.items = items
    }
}

/// One list item: its blocks, its task state, and the source lines it spans.
package struct MarkdownListItem: Equatable {
    /// Nil for an ordinary item, true or false for a checked or unchecked task.
    package var task: Bool?
    package var blocks: [MarkdownBlock]
    package var startLine: Int
    package var endLine: Int

    package init(task: Bool?, blocks: [MarkdownBlock], startLine: Int, endLine: Int) {
        self.task = task
        self.blocks = blocks
        self.startLine = startLine
        self.endLine = endLine
    }
}

/// A GFM table: alignments, the header row and the body rows, each cell a run of inlines.
package struct MarkdownTable: Equatable {
    package enum Alignment: Equatable { case none, left, center, right }
    package var alignments: [Alignment]
    package var header: [[MarkdownInline]]
    package var rows: [[[MarkdownInline]]]
    /// The source line of each body row (1-based), parallel to `rows`.
    package var rowLines: [Int]

    package init(alignments: [Alignment], header: [[MarkdownInline]], rows: [[[MarkdownInline]]], rowLines: [Int]) {
        self.alignments = alignments
        self.header = header
        self.rows = rows
        self.rowLines = rowLines
    }
}

/// Inline content of a paragraph, heading or table cell.
package enum MarkdownInline: Equatable {
    case text(String)
    case code(String)
    case emphasis([MarkdownInline])
    case strong([MarkdownInline])
    case strikethrough([MarkdownInline])
    case link(url: String, [MarkdownInline])
    case image(url: String, [MarkdownInline])
    case html(String)
    case softBreak
    case lineBreak
    /// A reference to the footnote with this label (`[^label]`), found by `Footnotes`, not by the parser.
    case footnoteReference(String)
}

/// A top-level block with the source lines (1-based, inclusive) it came from; `startLine` 0 means unknown.
package struct SourceBlock: Equatable {
    package var block: MarkdownBlock
    package var startLine: Int
    package var endLine: Int

    package init(block: MarkdownBlock, startLine: Int, endLine: Int) {
        self.block = block
        self.startLine = startLine
        self.endLine = endLine
    }
}
