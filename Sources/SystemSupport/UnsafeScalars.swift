/// The one set of characters llmster never passes on as they are from text it did not write (a model, a tool, a
/// server, a file): C0 and C1 controls and DEL (an escape sequence, a carriage return that overprints a line), the
/// bidirectional marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069: they
/// can make a line read differently from what it is), and the Unicode line and paragraph separators (U+2028, U+2029:
/// they can end a line of a file or of JSON-carrying text).
///
/// Each place decides only what it writes instead: the terminal sanitiser (`UntrustedText`) a visible or no form
/// (keeping newline and tab), JSON a `\u` escape, the server's error texts a space, the configuration file a refusal.
public enum UnsafeScalars {
    /// Whether `scalar` is in the set.
    public static func contains(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Whether `text` holds a scalar of the set.
    public static func any(in text: String) -> Bool { text.unicodeScalars.contains(where: contains) }
}
