import SystemSupport

/// Neutralises terminal control characters in text that came from a model, a tool or a server.
///
/// The characters replaced are `UnsafeScalars` (the one set), newline and tab aside.
/// Every C0 control except newline and tab becomes its visible Control Picture (ESC shows as `␛`, so an
/// escape sequence prints as inert text such as `␛[2J`); DEL becomes `␡`; C1 controls become `␛` followed by
/// their 7-bit equivalent (U+009B shows as `␛[`); carriage returns are dropped (so `\r\n` reads as a newline
/// and no line can be overprinted); bidirectional embeddings and overrides become U+FFFD (they can make a line
/// read differently from what it is); bidirectional isolates and marks are dropped (invisible, and an unbalanced
/// isolate could still reorder what follows it); the line and paragraph separators become newlines. The mapping works
/// scalar by scalar, so sanitising a text in pieces gives the same result as sanitising it whole.
public enum UntrustedText {
    /// Returns `text` with every control character replaced by an inert visible form.
    public static func sanitize(_ text: String) -> String { replacingUnsafeScalars(in: text, keepingLines: true) }

    /// Returns `text` for a one-line listing or message (a title, a folder, a cell of a table row): as `sanitize`,
    /// but newline, carriage return and tab become their Control Pictures (`␊`, `␍`, `␉`) and the line and paragraph
    /// separators `␤`, so no library string can split a row or start a line of its own.
    public static func oneLine(_ text: String) -> String { replacingUnsafeScalars(in: text, keepingLines: false) }

    /// Whether `scalar` is replaced: one of `UnsafeScalars` other than newline and tab.
    static func needsReplacement(_ scalar: Unicode.Scalar) -> Bool {
        scalar != "\n" && scalar != "\t" && UnsafeScalars.contains(scalar)
    }

    private static func replacingUnsafeScalars(in text: String, keepingLines: Bool) -> String {
        guard UnsafeScalars.any(inUTF8: text.utf8, exceptNewlineAndTab: keepingLines) else { return text }
        var result = String.UnicodeScalarView()
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if keepingLines ? needsReplacement(scalar) : UnsafeScalars.contains(scalar) {
                result.append(contentsOf: replacement(for: scalar, keepingLines: keepingLines).unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    private static func replacement(for scalar: Unicode.Scalar, keepingLines: Bool) -> String {
        switch scalar.value {
        case 0x0D where keepingLines: return ""
        case 0x2028, 0x2029: return keepingLines ? "\n" : "\u{2424}"
        case 0x061C, 0x200E, 0x200F, 0x2066...0x2069: return ""
        case 0x00...0x1F: return String(Unicode.Scalar(0x2400 + scalar.value)!)
        case 0x7F: return "\u{2421}"
        case 0x80...0x9F: return "\u{241B}" + String(Unicode.Scalar(scalar.value - 0x40)!)
        default: return "\u{FFFD}"
        }
    }
}
