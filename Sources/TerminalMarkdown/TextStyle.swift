/// SGR attributes of a run of text and its foreground colour.
struct TextStyle: Equatable, Sendable {
    var bold = false
    var dim = false
    var italic = false
    var underline = false
    var strike = false
    var color: TerminalColor?

    static let plain = TextStyle()

    /// Appends the SGR parameters for this style at `level` (`1;38;5;77`) to `bytes`, nothing when nothing is to be
    /// set: wrapping builds a span's sequence for each run of a paragraph, so this writes no intermediate string.
    func appendParameters(at level: StyleLevel, to bytes: inout [UInt8]) {
        forEachParameterByte(at: level) { bytes.append($0) }
    }

    /// Passes the bytes of this style's SGR parameters at `level` to `emit`, in order.
    @inline(__always)
    private func forEachParameterByte(at level: StyleLevel, _ emit: (UInt8) -> Void) {
        guard level != .plain else { return }
        var first = true
        func add(_ code: UInt8) {
            if !first { emit(UInt8(ascii: ";")) }
            first = false
            if code >= 100 { emit(UInt8(ascii: "0") + code / 100) }
            if code >= 10 { emit(UInt8(ascii: "0") + code / 10 % 10) }
            emit(UInt8(ascii: "0") + code % 10)
        }
        if bold { add(1) }
        if dim { add(2) }
        if italic { add(3) }
        if underline { add(4) }
        if strike { add(9) }
        if level == .color, let color {
            switch color {
            case .base(let code):
                add(code)
            case .indexed(let index):
                add(38)
                add(5)
                add(index)
            case .rgb(let red, let green, let blue):
                add(38)
                add(2)
                add(red)
                add(green)
                add(blue)
            }
        }
    }

    /// Passes the SGR sequence that sets this style at `level` to `body`, built in a buffer on the stack; nil, without
    /// calling it, when the style sets nothing.
    @inline(__always)
    private func withOpening<Result>(at level: StyleLevel, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        guard level != .plain else { return nil }
        // "\e[" + at most "1;2;3;4;9;38;2;255;255;255" + "m".
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in
            buffer[0] = 0x1B
            buffer[1] = UInt8(ascii: "[")
            var count = 2
            forEachParameterByte(at: level) { byte in
                precondition(count < 31, "an SGR sequence longer than its buffer")
                buffer[count] = byte
                count += 1
            }
            guard count > 2 else { return nil }
            buffer[count] = UInt8(ascii: "m")
            return body(UnsafeBufferPointer(rebasing: buffer[...count]))
        }
    }

    /// `text` wrapped in this style's SGR sequence and a reset, or `text` alone when the style sets nothing; written
    /// straight into the new string's storage, one allocation (a marker, fence or label is styled once per item or
    /// block).
    func apply(_ text: String, at level: StyleLevel) -> String {
        guard !text.isEmpty else { return text }
        var text = text
        let styled = withOpening(at: level) { opening in
            text.withUTF8 { body in
                String(unsafeUninitializedCapacity: opening.count + body.count + Self.reset.count) { buffer in
                    var end = buffer.initialize(fromContentsOf: opening)
                    end = buffer[end...].initialize(fromContentsOf: body)
                    return buffer[end...].initialize(fromContentsOf: Self.reset)
                }
            }
        }
        return styled ?? text
    }

    /// Appends the SGR sequence that sets this style at `level` to `bytes` and returns true; appends nothing and
    /// returns false when the style sets nothing. The sequence is assembled on the stack and appended at once.
    @discardableResult
    func appendOpening(at level: StyleLevel, to bytes: inout [UInt8]) -> Bool {
        withOpening(at: level) { bytes.append(contentsOf: $0) } != nil
    }

    /// Appends the bytes `write` appends to `bytes` wrapped as `apply(_:at:)` wraps text (so not when it appends
    /// none), for a line assembled as bytes without an intermediate string.
    func append(at level: StyleLevel, to bytes: inout [UInt8], _ write: (inout [UInt8]) -> Void) {
        let start = bytes.count
        let styled = appendOpening(at: level, to: &bytes)
        let text = bytes.count
        write(&bytes)
        if bytes.count == text {
            bytes.removeSubrange(start...)
        } else if styled {
            bytes += Self.reset
        }
    }

    /// The SGR sequence that ends a styled span.
    static let reset: [UInt8] = Array("\u{1B}[0m".utf8)
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

/// The colours and attributes each Markdown construct is shown with.
///
/// Every colour reads on the background it is chosen for, at a contrast of at least 4.5:1 (WCAG AA): with 16
/// colours against xterm's palette, with 256 colours and truecolor against black and #1e1e1e (dark) or white and
/// Solarized's #fdf6e3 (light). Dim marks secondary text (markers, borders, link targets) at the terminal's own
/// faint intensity.
struct MarkdownTheme: Sendable {
    var headings: [TextStyle] = [
        TextStyle(bold: true, underline: true, color: 95),
        TextStyle(bold: true, color: 95),
        TextStyle(bold: true, color: 96),
        TextStyle(bold: true)
    ]
    var headingMarker = TextStyle(dim: true)
    var inlineCode = TextStyle(color: 36)
    var codeFence = TextStyle(dim: true)
    var codeLabel = TextStyle(dim: true, italic: true)
    var codeLine = TextStyle()
    var link = TextStyle(underline: true, color: 96)
    var linkDetail = TextStyle(dim: true)
    var quoteBar = TextStyle(color: 32)
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
    /// The colour of each alert's bar and title, in `Alert.Kind` order (note, tip, important, warning, caution).
    var alerts: [TerminalColor] = [96, 92, 95, 93, 91]
    /// A tool call's outcome on the live screen: succeeded, failed, and did not finish (also "incomplete").
    var succeeded = TextStyle(color: 92)
    var failed = TextStyle(color: 91)
    var unfinished = TextStyle(color: 93)

    static let standard = MarkdownTheme()

    /// The theme whose colours read on `background` at `depth`.
    ///
    /// With 16 colours the palette is the terminal's, so only the base colours that keep their contrast in xterm's
    /// palette are used: on a dark background the bright ones, green, yellow and cyan (xterm's blue, red and magenta
    /// are too dark on black); on a light one only red and blue (its yellow, green, cyan and magenta wash out on
    /// white), the rest told apart by attributes. With more colours each construct takes its own colour from a
    /// palette on xterm's 6×6×6 cube, which 256-colour and truecolor terminals show alike.
    static func standard(for background: TerminalBackground, depth: ColorDepth = .base16) -> MarkdownTheme {
        var theme = MarkdownTheme()
        switch (background, depth) {
        case (.dark, .base16):
            break
        case (.light, .base16):
            theme.headings = [
                TextStyle(bold: true, underline: true, color: 34), TextStyle(bold: true, color: 34),
                TextStyle(bold: true, underline: true), TextStyle(bold: true)
            ]
            theme.inlineCode = TextStyle(color: 31)
            theme.link = TextStyle(underline: true, color: 34)
            theme.quoteBar = TextStyle(color: 34)
            theme.succeeded = TextStyle(color: 34)
            theme.failed = TextStyle(color: 31)
            theme.unfinished = TextStyle(color: 31)
            theme.listMarker = TextStyle(color: 34)
            theme.taskDone = TextStyle(color: 34)
            theme.taskOpen = TextStyle(color: 31)
            theme.footnote = TextStyle(color: 34)
            theme.alerts = [34, 34, 34, 31, 31]
            theme.code = .light16
        case (_, .indexed256), (_, .truecolor):
            let palette = background == .light ? CubePalette.light : CubePalette.dark
            let color = { (cube: CubeColor) in cube.color(at: depth) }
            theme.headings = [
                TextStyle(bold: true, underline: true, color: color(palette.magenta)),
                TextStyle(bold: true, color: color(palette.magenta)),
                TextStyle(bold: true, color: color(palette.cyan)), TextStyle(bold: true)
            ]
            theme.inlineCode = TextStyle(color: color(background == .light ? palette.red : palette.cyan))
            theme.link = TextStyle(underline: true, color: color(palette.blue))
            theme.quoteBar = TextStyle(color: color(palette.green))
            theme.succeeded = TextStyle(color: color(palette.green))
            theme.failed = TextStyle(color: color(palette.red))
            theme.unfinished = TextStyle(color: color(palette.yellow))
            theme.listMarker = TextStyle(color: color(background == .light ? palette.blue : palette.yellow))
            theme.taskDone = TextStyle(color: color(palette.green))
            theme.taskOpen = TextStyle(color: color(palette.yellow))
            theme.footnote = TextStyle(color: color(palette.cyan))
            theme.alerts = [palette.blue, palette.green, palette.magenta, palette.yellow, palette.red].map(color)
            theme.code = CodeTheme(palette: palette, depth: depth)
        }
        return theme
    }

    func heading(_ level: Int) -> TextStyle { headings[min(max(level, 1), headings.count) - 1] }

    /// The colour of an alert's bar and title, as GitHub colours them where the background allows.
    func alert(_ kind: Alert.Kind) -> TextStyle {
        switch kind {
        case .note: TextStyle(color: alerts[0])
        case .tip: TextStyle(color: alerts[1])
        case .important: TextStyle(color: alerts[2])
        case .warning: TextStyle(color: alerts[3])
        case .caution: TextStyle(color: alerts[4])
        }
    }
}

/// A foreground colour as the terminal is told it.
enum TerminalColor: Equatable, Sendable, ExpressibleByIntegerLiteral {
    /// One of the 16 base colours by its SGR code (30–37, 90–97), shown in the terminal's own palette.
    case base(UInt8)
    /// An entry of the 256-colour palette (`38;5;N`).
    case indexed(UInt8)
    /// A truecolor value (`38;2;R;G;B`).
    case rgb(UInt8, UInt8, UInt8)

    init(integerLiteral code: UInt8) { self = .base(code) }
}

/// How many colours the terminal shows: `COLORTERM=truecolor` (or `24bit`) for truecolor, a `TERM` naming
/// 256 colours for 256; 16 otherwise and inside Emacs.
public enum ColorDepth: Sendable, Equatable {
    case base16
    case indexed256
    case truecolor

    static func detect(_ environment: [String: String]) -> ColorDepth {
        guard environment["INSIDE_EMACS"] == nil else { return .base16 }
        let colorTerm = (environment["COLORTERM"] ?? "").lowercased()
        let term = environment["TERM"] ?? ""
        if colorTerm == "truecolor" || colorTerm == "24bit" || term.hasSuffix("-direct") { return .truecolor }
        return term.contains("256color") ? .indexed256 : .base16
    }
}

/// A colour of xterm's 256-colour palette past the 16 base ones: a point of the 6×6×6 cube (levels 0–5 per
/// channel) or a step of the 24-step grey ramp; a truecolor terminal is given its exact RGB.
struct CubeColor: Sendable {
    let index: UInt8

    init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) { index = 16 + 36 * red + 6 * green + blue }
    init(grey step: UInt8) { index = 232 + step }

    /// The channel values xterm gives this entry.
    var rgb: (UInt8, UInt8, UInt8) {
        if index >= 232 {
            let value = 8 + 10 * (index - 232)
            return (value, value, value)
        }
        let levels: [UInt8] = [0, 95, 135, 175, 215, 255]
        let cube = Int(index) - 16
        return (levels[cube / 36], levels[cube / 6 % 6], levels[cube % 6])
    }

    func color(at depth: ColorDepth) -> TerminalColor {
        guard depth == .truecolor else { return .indexed(index) }
        let (red, green, blue) = rgb
        return .rgb(red, green, blue)
    }
}

/// The named colours of the 256-colour and truecolor themes for one kind of background.
struct CubePalette: Sendable {
    var blue, green, yellow, red, magenta, cyan, grey: CubeColor

    static let dark = CubePalette(
        blue: CubeColor(1, 2, 5), green: CubeColor(1, 4, 1), yellow: CubeColor(4, 3, 0),
        red: CubeColor(5, 1, 1), magenta: CubeColor(4, 1, 4), cyan: CubeColor(1, 4, 4),
        grey: CubeColor(grey: 14))
    static let light = CubePalette(
        blue: CubeColor(0, 1, 3), green: CubeColor(0, 1, 0), yellow: CubeColor(2, 1, 0),
        red: CubeColor(3, 0, 0), magenta: CubeColor(2, 0, 3), cyan: CubeColor(0, 1, 2),
        grey: CubeColor(grey: 8))
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

    /// Bright colours for dark backgrounds with 16 colours (xterm's blue and grey are too dark on black).
    static let dark = CodeTheme(
        keyword: TextStyle(color: 95), type: TextStyle(color: 96), string: TextStyle(color: 92),
        comment: TextStyle(italic: true, color: 90), number: TextStyle(color: 93), preprocessor: TextStyle(color: 36),
        function: TextStyle(bold: true), variable: TextStyle(color: 96), special: TextStyle(color: 93),
        inserted: TextStyle(color: 92), deleted: TextStyle(color: 91))

    /// Light backgrounds with 16 colours: red and blue, which keep their contrast on white, and attributes.
    static let light16 = CodeTheme(
        keyword: TextStyle(bold: true, color: 34), type: TextStyle(color: 34), string: TextStyle(color: 31),
        comment: TextStyle(italic: true), number: TextStyle(color: 31), preprocessor: TextStyle(color: 34),
        function: TextStyle(bold: true), variable: TextStyle(), special: TextStyle(color: 31),
        inserted: TextStyle(color: 34), deleted: TextStyle(color: 31))

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

extension CodeTheme {
    /// A colour for each kind of token from `palette`, for 256-colour and truecolor terminals.
    init(palette: CubePalette, depth: ColorDepth) {
        let style = { (cube: CubeColor) in TextStyle(color: cube.color(at: depth)) }
        self.init(
            keyword: style(palette.magenta), type: style(palette.cyan), string: style(palette.green),
            comment: TextStyle(italic: true, color: palette.grey.color(at: depth)), number: style(palette.yellow),
            preprocessor: style(palette.blue), function: style(palette.blue), variable: style(palette.cyan),
            special: style(palette.yellow), inserted: style(palette.green), deleted: style(palette.red))
    }
}
