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
        var codes: [UInt8] = []
        appendParameters(at: level, to: &codes)
        return String(decoding: codes, as: UTF8.self)
    }

    /// Appends `parameters(at:)`'s bytes to `bytes` (nothing when nothing is to be set): wrapping builds a span's
    /// sequence for each run of a paragraph, so this writes no intermediate string.
    func appendParameters(at level: StyleLevel, to bytes: inout [UInt8]) {
        guard level != .plain else { return }
        let start = bytes.count
        func add(_ code: UInt8) {
            if bytes.count > start { bytes.append(UInt8(ascii: ";")) }
            if code >= 100 { bytes.append(UInt8(ascii: "0") + code / 100) }
            if code >= 10 { bytes.append(UInt8(ascii: "0") + code / 10 % 10) }
            bytes.append(UInt8(ascii: "0") + code % 10)
        }
        if bold { add(1) }
        if dim { add(2) }
        if italic { add(3) }
        if underline { add(4) }
        if strike { add(9) }
        if level == .color, let color { add(color) }
    }

    /// `text` wrapped in this style's SGR sequence and a reset, or `text` alone when the style sets nothing.
    func apply(_ text: String, at level: StyleLevel) -> String {
        var output = ""
        append(Substring(text), at: level, to: &output)
        return output
    }

    /// Appends `text` to `output` as `apply(_:at:)` renders it, without an intermediate string.
    func append(_ text: Substring, at level: StyleLevel, to output: inout String) {
        let codes = parameters(at: level)
        guard !codes.isEmpty, !text.isEmpty else {
            output += text
            return
        }
        output += "\u{1B}["
        output += codes
        output += "m"
        output += text
        output += "\u{1B}[0m"
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
    var codeLabel = TextStyle(dim: true, italic: true)
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
    var footnote = TextStyle(color: 36)
    var key = TextStyle(bold: true, underline: true)
    var code = CodeTheme.dark

    static let standard = MarkdownTheme()

    /// The standard theme with prose and code colours that read on `background`: on a dark one links take bright
    /// blue (xterm's blue 34 is barely visible on black); on a light one yellow and cyan, which wash out on white,
    /// give way to blue, red and magenta.
    static func standard(for background: TerminalBackground) -> MarkdownTheme {
        var theme = MarkdownTheme()
        switch background {
        case .dark:
            theme.code = .dark
            theme.link = TextStyle(underline: true, color: 94)
        case .light:
            theme.code = .light
            theme.headings[2] = TextStyle(bold: true, color: 34)
            theme.inlineCode = TextStyle(color: 31)
            theme.listMarker = TextStyle(color: 34)
            theme.taskOpen = TextStyle(color: 35)
            theme.footnote = TextStyle(color: 34)
        }
        return theme
    }

    func heading(_ level: Int) -> TextStyle { headings[min(max(level, 1), headings.count) - 1] }

    /// The colour of an alert's bar and title, as GitHub colours them.
    func alert(_ kind: Alert.Kind) -> TextStyle {
        switch kind {
        case .note: TextStyle(color: 34)
        case .tip: TextStyle(color: 32)
        case .important: TextStyle(color: 35)
        case .warning: TextStyle(color: 33)
        case .caution: TextStyle(color: 31)
        }
    }
}

/// Colours of highlighted code, one per kind of token.
struct CodeTheme: Sendable {
    var keyword: TextStyle
    var type: TextStyle
    var string: TextStyle
    var comment: TextStyle
    var number: TextStyle
    var preprocessor: TextStyle
    var function: TextStyle
    var variable: TextStyle
    var special: TextStyle
    var inserted: TextStyle
    var deleted: TextStyle

    /// Bright colours for dark backgrounds (dark blue and dark grey are hard to read there).
    static let dark = CodeTheme(
        keyword: TextStyle(color: 95), type: TextStyle(color: 96), string: TextStyle(color: 92),
        comment: TextStyle(dim: true, italic: true), number: TextStyle(color: 93), preprocessor: TextStyle(color: 94),
        function: TextStyle(color: 94), variable: TextStyle(color: 96), special: TextStyle(color: 93),
        inserted: TextStyle(color: 92), deleted: TextStyle(color: 91))

    /// Normal-intensity colours for light backgrounds (yellow and the bright colours wash out there).
    static let light = CodeTheme(
        keyword: TextStyle(color: 35), type: TextStyle(color: 36), string: TextStyle(color: 32),
        comment: TextStyle(italic: true, color: 90), number: TextStyle(color: 34), preprocessor: TextStyle(color: 34),
        function: TextStyle(color: 34), variable: TextStyle(color: 36), special: TextStyle(color: 31),
        inserted: TextStyle(color: 32), deleted: TextStyle(color: 31))

    func style(for kind: CodeHighlighter.Kind) -> TextStyle {
        switch kind {
        case .plain: return .plain
        case .keyword: return keyword
        case .type: return type
        case .string: return string
        case .comment: return comment
        case .number: return number
        case .preprocessor: return preprocessor
        case .function: return function
        case .variable: return variable
        case .special: return special
        case .inserted: return inserted
        case .deleted: return deleted
        }
    }
}
