/// SGR attributes of a run of text; `color` is a base foreground code (30–37, 90–97).
struct TextStyle: Equatable, Sendable {
    var bold = false
    var dim = false
    var italic = false
    var underline = false
    var strike = false
    var color: UInt8?

    static let plain = TextStyle()

    /// The SGR parameters for this style at `level`, or an empty string when nothing is to be set.
    func parameters(at level: StyleLevel) -> String {
        guard level != .plain else { return "" }
        var codes: [String] = []
        if bold { codes.append("1") }
        if dim { codes.append("2") }
        if italic { codes.append("3") }
        if underline { codes.append("4") }
        if strike { codes.append("9") }
        if level == .color, let color { codes.append(String(color)) }
        return codes.joined(separator: ";")
    }

    /// `text` wrapped in this style's SGR sequence and a reset, or `text` alone when the style sets nothing.
    func apply(_ text: String, at level: StyleLevel) -> String {
        let codes = parameters(at: level)
        return codes.isEmpty || text.isEmpty ? text : "\u{1B}[\(codes)m\(text)\u{1B}[0m"
    }
}

/// How much styling the output may carry.
enum StyleLevel: Sendable {
    /// Colours and attributes.
    case color
    /// Attributes (bold, italic, underline, dim, strikethrough) without colours, for `NO_COLOR`.
    case attributes
    /// No SGR at all: not a terminal, `TERM=dumb`, Emacs.
    case plain
}

/// The colours and attributes each Markdown construct is shown with, chosen from the 16 base colours so they read
/// on dark and light backgrounds alike.
struct MarkdownTheme: Sendable {
    var headings: [TextStyle] = [
        TextStyle(bold: true, underline: true, color: 35),
        TextStyle(bold: true, color: 35),
        TextStyle(bold: true, color: 36),
        TextStyle(bold: true),
    ]
    var headingMarker = TextStyle(dim: true)
    var inlineCode = TextStyle(color: 36)
    var codeFence = TextStyle(dim: true)
    var codeLine = TextStyle()
    var link = TextStyle(underline: true, color: 34)
    var linkDetail = TextStyle(dim: true)
    var quoteBar = TextStyle(dim: true, color: 32)
    var listMarker = TextStyle(color: 33)
    var taskDone = TextStyle(color: 32)
    var taskOpen = TextStyle(color: 33)
    var rule = TextStyle(dim: true)
    var tableBorder = TextStyle(dim: true)
    var tableHeader = TextStyle(bold: true)
    var html = TextStyle(dim: true)

    static let standard = MarkdownTheme()

    func heading(_ level: Int) -> TextStyle { headings[min(max(level, 1), headings.count) - 1] }
}
