/// Terminal column widths of grapheme clusters and strings.
///
/// A cluster is 0 columns when it is a control or starts with a combining mark, format character, zero-width
/// joiner or variation selector; 2 when it is East Asian Wide/Fullwidth, has emoji presentation, carries VS16,
/// a ZWJ or a skin-tone modifier, or is a flag pair; otherwise 1. Tabs advance to the next multiple of 8.
public enum DisplayWidth {
    /// Distance between tab stops.
    public static let tabStop = 8

    /// The columns one grapheme cluster occupies; a tab counts as 1 here (use `of(_:String)` for tab stops).
    public static func of(_ character: Character) -> Int {
        if let ascii = character.asciiValue {
            return ascii < 0x20 || ascii == 0x7F ? (ascii == 0x09 ? 1 : 0) : 1
        }
        let scalars = character.unicodeScalars
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

    /// The columns a string occupies when printed from column 0, with tabs expanded to tab stops.
    public static func of(_ string: String) -> Int {
        advance(from: 0, over: string)
    }

    /// The column reached after printing `string` starting at `column`.
    static func advance(from column: Int, over string: String) -> Int {
        var column = column
        if string.utf8.contains(where: { $0 >= 0x80 }) {
            for character in string { column = advance(from: column, over: character) }
            return column
        }
        for byte in string.utf8 {
            if byte == 0x09 { column += tabStop - column % tabStop } else if byte >= 0x20 && byte != 0x7F { column += 1 }
        }
        return column
    }

    /// The column reached after printing one cluster at `column`.
    static func advance(from column: Int, over character: Character) -> Int {
        character == "\t" ? column + tabStop - column % tabStop : column + of(character)
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
            if value < range.lowerBound { high = mid - 1 } else if value > range.upperBound { low = mid + 1 } else { return true }
        }
        return false
    }
}
