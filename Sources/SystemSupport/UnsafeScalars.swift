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

    /// `scalar` as a JSON `\u` escape with four lowercase hex digits (`\u009b`); every scalar of the set has four.
    public static func jsonEscape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// Whether `text` holds a scalar of the set.
    public static func any(in text: String) -> Bool { any(inUTF8: text.utf8, exceptNewlineAndTab: false) }

    /// Whether the valid UTF-8 `text` holds a scalar of the set (newline and tab not counted when
    /// `exceptNewlineAndTab`), read byte by byte without decoding: only the lead bytes of the set's scalars
    /// (C0, DEL, C2 for C1, D8 for U+061C, E2 for the U+20xx marks) are looked at further, and eight bytes of
    /// printable ASCII are passed over at once.
    public static func any<Bytes: Collection<UInt8>>(inUTF8 text: Bytes, exceptNewlineAndTab: Bool) -> Bool {
        if let found = text.withContiguousStorageIfAvailable({ scan($0, exceptNewlineAndTab: exceptNewlineAndTab) }) {
            return found
        }
        return Array(text).withUnsafeBufferPointer { scan($0, exceptNewlineAndTab: exceptNewlineAndTab) }
    }

    /// Whether the eight bytes of `word` are all printable ASCII (0x20–0x7E), none of which is in the set or leads
    /// one of its scalars: no byte has the high bit, none is below 0x20 and none is DEL (the tests for a byte below
    /// a value and for a zero byte, done on all eight bytes at once).
    private static func isPrintableASCII(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let belowSpace = (word &- ones &* 0x20) & ~word & high
        let delete = word ^ (ones &* 0x7F)
        let isDelete = (delete &- ones) & ~delete & high
        return (word & high) | belowSpace | isDelete == 0
    }

    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>, exceptNewlineAndTab: Bool) -> Bool {
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if let base = bytes.baseAddress, bytes.endIndex - index >= 8,
                isPrintableASCII(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            {
                index += 8
                continue
            }
            let byte = bytes[index]
            index = bytes.index(after: index)
            switch byte {
            case 0x0A, 0x09: if !exceptNewlineAndTab { return true }
            case 0x00...0x1F, 0x7F: return true
            case 0xC2, 0xD8, 0xE2:
                guard index != bytes.endIndex else { return false }
                let second = bytes[index]
                switch (byte, second) {
                case (0xC2, 0x80...0x9F), (0xD8, 0x9C): return true
                case (0xE2, 0x80), (0xE2, 0x81):
                    let thirdIndex = bytes.index(after: index)
                    guard thirdIndex != bytes.endIndex else { return false }
                    let third = bytes[thirdIndex]
                    // U+200E–U+200F, U+2028–U+202E (E2 80 …); U+2066–U+2069 (E2 81 …).
                    if second == 0x80
                        ? (third == 0x8E || third == 0x8F || (0xA8...0xAE).contains(third))
                        : (0xA6...0xA9).contains(third)
                    {
                        return true
                    }
                default: break
                }
            default: break
            }
        }
        return false
    }
}
