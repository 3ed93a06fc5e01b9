/// Grapheme cluster boundaries that two adjacent code points decide on their own, so that common non-ASCII text
/// (Latin letters, punctuation, CJK, kana, Hangul syllables, single emoji) is measured a code point at a time without
/// the standard library's cluster breaking. Both tests are conservative: false only means "ask `String`".
enum GraphemeBoundary {
    /// Whether a cluster that starts at `scalar` ends before a following `next` for which `startsCluster` holds:
    /// false for CR, prepended concatenation marks (Arabic, Brahmic), Hangul jamo, ZWJ, regional indicators, and the
    /// blocks around them.
    static func endsBefore(after scalar: UInt32) -> Bool {
        if scalar < 0x80 { return scalar != 0x0D }
        switch scalar {
        case 0x0600...0x08FF, 0x0D4E, 0x1100...0x11FF, 0x200D, 0xA960...0xA97F, 0xD7B0...0xD7FF,
            0x11000...0x11FFF, 0x1F1E6...0x1F1FF:
            return false
        default: return true
        }
    }

    /// Whether `scalar` never continues the cluster before it (it is no combining or spacing mark, ZWJ, variation
    /// selector, emoji modifier or Hangul vowel or trailing jamo), for the blocks of common text.
    static func startsCluster(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0x3000...0x3029, 0x3030...0x3098, 0x309B...0x9FFF, 0xAC00...0xD7A3, 0x00...0x7F, 0xA0...0x2FF,
            0x370...0x482, 0x2010...0x2027, 0x2030...0x205E, 0x2070...0x20CF,
            0x2100...0x27BF, 0x2E80...0x2FFF, 0xF900...0xFAFF,
            0xFF01...0xFF9D, 0x1F300...0x1F3FA, 0x1F400...0x1F64F, 0x1F680...0x1F6FF, 0x1F900...0x1F9FF,
            0x20000...0x3FFFD:
            return true
        default: return false
        }
    }
}
