/// How a terminal counts the columns of a multi-code-point character such as 👨‍👩‍👧 or 1️⃣.
public enum WidthModel: String, Sendable, CaseIterable {
    /// Each code point on its own, as `wcwidth` does: xterm, VTE, Konsole, Alacritty, tmux, screen.
    case codepoint
    /// One grapheme cluster at a time, emoji sequences two columns: kitty, WezTerm, Ghostty, iTerm2.
    case grapheme

    /// The model of the terminal `environment` describes: grapheme only for terminals known to cluster, and never
    /// inside tmux or screen, which count code points themselves.
    public static func detect(_ environment: [String: String]) -> WidthModel {
        let term = environment["TERM"] ?? ""
        if environment["TMUX"] != nil || environment["STY"] != nil || term.hasPrefix("screen") || term.hasPrefix("tmux")
        {
            return .codepoint
        }
        if let program = environment["TERM_PROGRAM"], ["iTerm.app", "WezTerm", "ghostty"].contains(program) {
            return .grapheme
        }
        if environment["KITTY_WINDOW_ID"] != nil
            || ["xterm-kitty", "xterm-ghostty", "wezterm"].contains(where: term.hasPrefix)
        {
            return .grapheme
        }
        return .codepoint
    }
}

/// Terminal column widths of grapheme clusters and strings.
///
/// In the grapheme model a cluster is 0 columns when it is a control or starts with a combining mark, format
/// character, zero-width joiner or variation selector; 2 when it is East Asian Wide/Fullwidth, has emoji
/// presentation, carries VS16, a ZWJ or a skin-tone modifier, or is a flag pair; otherwise 1. In the code-point
/// model a cluster is the sum of its code points, each 0, 1 or 2 by the same rules. Tabs advance to the next
/// multiple of 8.
public enum DisplayWidth {
    /// Distance between tab stops.
    public static let tabStop = 8

    /// The columns one grapheme cluster occupies in the grapheme model; a tab counts as 1 here.
    public static func of(_ character: Character) -> Int { of(character, model: .grapheme) }

    /// The columns one grapheme cluster occupies; a tab counts as 1 here (use `of(_:String)` for tab stops).
    public static func of(_ character: Character, model: WidthModel) -> Int {
        if let ascii = character.asciiValue {
            return ascii < 0x20 || ascii == 0x7F ? (ascii == 0x09 ? 1 : 0) : 1
        }
        let scalars = character.unicodeScalars
        if model == .codepoint {
            return scalars.reduce(0) { $0 + of($1) }
        }
        let first = scalars.first!
        if isZeroWidth(first) { return 0 }
        if scalars.count > 1 {
            var regionalIndicators = 0
            for scalar in scalars {
                switch scalar.value {
                case 0x200D, 0xFE0F, 0x1F3FB...0x1F3FF: return 2
                case 0x1F1E6...0x1F1FF: regionalIndicators += 1
                default: break
                }
            }
            if regionalIndicators == 2 { return 2 }
        }
        return isWide(first) ? 2 : 1
    }

    /// The columns a cluster of one non-ASCII code point occupies, in either model.
    static func of(_ scalar: Unicode.Scalar) -> Int { commonWidth(scalar) ?? measuredWidth(scalar) }

    /// The width of a code point in the blocks of Latin letters, kana, CJK ideographs, Hangul syllables and
    /// fullwidth forms, known without looking up its properties; nil for others.
    static func commonWidth(_ scalar: Unicode.Scalar) -> Int? {
        switch scalar.value {
        case 0xA0...0xAC, 0xAE...0x2FF: return 1
        case 0x3041...0x3096, 0x30A1...0x30FA, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7A3, 0xFF01...0xFF60:
            return 2
        default: return nil
        }
    }

    /// The width of a code point by its general category, emoji presentation and East Asian width.
    static func measuredWidth(_ scalar: Unicode.Scalar) -> Int { isZeroWidth(scalar) ? 0 : isWide(scalar) ? 2 : 1 }

    /// The columns a string occupies in the grapheme model when printed from column 0, tabs expanded.
    public static func of(_ string: String) -> Int { of(string, model: .grapheme) }

    /// The columns a string occupies when printed from column 0, with tabs expanded to tab stops.
    public static func of(_ string: String, model: WidthModel) -> Int {
        advance(from: 0, over: string, model: model)
    }

    /// The column reached after printing `string` starting at `column`.
    static func advance(from column: Int, over string: String, model: WidthModel = .grapheme) -> Int {
        var column = column
        if string.utf8.contains(where: { $0 >= 0x80 }) {
            for character in string { column = advance(from: column, over: character, model: model) }
            return column
        }
        for byte in string.utf8 {
            if byte == 0x09 {
                column += tabStop - column % tabStop
            } else if byte >= 0x20 && byte != 0x7F {
                column += 1
            }
        }
        return column
    }

    /// The column reached after printing one cluster at `column`.
    static func advance(from column: Int, over character: Character, model: WidthModel = .grapheme) -> Int {
        character == "\t" ? column + tabStop - column % tabStop : column + of(character, model: model)
    }

    private static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x200B...0x200F, 0xFE00...0xFE0F, 0xE0100...0xE01EF, 0x1160...0x11FF: return true
        default: break
        }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return true
        default: return false
        }
    }

    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x1100 { return false }
        if scalar.properties.isEmojiPresentation { return true }
        var low = 0
        var high = eastAsianWideRanges.count - 1
        while low <= high {
            let mid = (low + high) / 2
            let range = eastAsianWideRanges[mid]
            if value < range.lowerBound {
                high = mid - 1
            } else if value > range.upperBound {
                low = mid + 1
            } else {
                return true
            }
        }
        return false
    }
}
