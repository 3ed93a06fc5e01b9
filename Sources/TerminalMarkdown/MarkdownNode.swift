/// A block of a parsed Markdown document, as plain Swift values (the C nodes are freed right after parsing).
enum MarkdownBlock: Equatable {
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
struct MarkdownList: Equatable {
    /// The first item's number, for ordered lists; nil for bullet lists.
    var start: Int?
    var items: [MarkdownListItem]
}

/// One list item: its blocks, its task state, and the source lines it spans.
struct MarkdownListItem: Equatable {
    /// Nil for an ordinary item, true or false for a checked or unchecked task.
    var task: Bool?
    var blocks: [MarkdownBlock]
    var startLine: Int
    var endLine: Int
}

/// A GFM table: alignments, the header row and the body rows, each cell a run of inlines.
struct MarkdownTable: Equatable {
    enum Alignment: Equatable { case none, left, center, right }
    var alignments: [Alignment]
    var header: [[MarkdownInline]]
    var rows: [[[MarkdownInline]]]
    /// The source line of each body row (1-based), parallel to `rows`.
    var rowLines: [Int]
}

/// Inline content of a paragraph, heading or table cell.
enum MarkdownInline: Equatable {
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
struct SourceBlock: Equatable {
    var block: MarkdownBlock
    var startLine: Int
    var endLine: Int
}
