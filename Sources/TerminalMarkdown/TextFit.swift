/// Plain text fitted to a terminal's columns: measured the way the terminal counts them (`width_mode`), cut with an
/// ellipsis the terminal can show, padded with spaces.
///
/// The one cutting and padding rule of one-line output outside rendered Markdown: command tables, wrapped help and
/// warnings, the REPL's lines and the reply's stage, tool-call and stats lines (`LineWrapper` wraps Markdown by the
/// same measure). A cut ends in `…` on a UTF-8 locale and in `...` otherwise, as the renderer draws ASCII rules,
/// bullets and bars without UTF-8.
public struct TextFit: Sendable, Equatable {
    /// How the terminal counts the columns of emoji sequences.
    public var widthModel: WidthModel
    /// The locale's character set is UTF-8, so `…` shows as one column.
    public var isUTF8: Bool

    /// A fit for a terminal that counts by `widthModel`; the defaults are those of `TerminalCapabilities()`.
    public init(widthModel: WidthModel = .grapheme, isUTF8: Bool = true) {
        self.widthModel = widthModel
        self.isUTF8 = isUTF8
    }

    /// What ends a cut text: `…`, or `...` without UTF-8.
    public var ellipsis: String { isUTF8 ? "…" : "..." }

    /// The columns `text` takes when printed from column 0, tabs expanded.
    public func columns(_ text: String) -> Int { DisplayWidth.of(text, model: widthModel) }

    /// `text` cut to at most `width` columns, ending in the ellipsis when something was cut; a width narrower than
    /// the ellipsis keeps only as much of it as fits.
    public func cut(_ text: String, to width: Int) -> String {
        guard columns(text) > width else { return text }
        let mark = ellipsis
        let markWidth = columns(mark)
        guard width > markWidth else { return String(mark.prefix(max(width, 0))) }
        return split(Substring(text), columns: width - markWidth, atLeastOne: false).head + mark
    }

    /// `text` cut to `width` columns and filled with spaces to exactly `width`.
    public func pad(_ text: String, to width: Int) -> String {
        let shown = cut(text, to: width)
        return shown + String(repeating: " ", count: max(width - columns(shown), 0))
    }

    /// The longest head of `text` that fits in `columns` columns, and the rest: where a word too wide for a line
    /// breaks. The head holds at least one cluster unless `atLeastOne` is false.
    public func split(_ text: Substring, columns: Int, atLeastOne: Bool = true) -> (head: String, rest: Substring) {
        var position = text.startIndex
        var used = 0
        while position < text.endIndex {
            let next = DisplayWidth.advance(from: used, over: text[position], model: widthModel)
            if next > columns, !(atLeastOne && position == text.startIndex) { break }
            used = next
            position = text.index(after: position)
        }
        return (String(text[..<position]), text[position...])
    }
}

extension TerminalCapabilities {
    /// How text is measured and cut on this terminal.
    public var textFit: TextFit { TextFit(widthModel: widthModel, isUTF8: isUTF8) }
}
