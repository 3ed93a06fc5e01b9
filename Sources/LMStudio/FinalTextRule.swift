/// The one rule for whether a `chat.end` text says what streamed, or rewrites it.
///
/// A final text says the same as the streamed text of its part when the two are equal once whitespace at both ends
/// is set aside (Unicode `White_Space`: servers trim what they stream), compared under canonical equivalence: an
/// "é" spelled precomposed (NFC) or as "e" and a combining accent (NFD) reads the same. Such a final text is not a
/// rewrite: the reply keeps what streamed, no streamed version is kept as an alternative, and no face says the
/// answer was replaced. `ReplyAccumulator` applies it to every part of the answer and of the reasoning, so the
/// REPL, `ask`, rpc and the library agree.
///
/// It compares in place: bytes first, with ASCII whitespace trimmed; only when those differ and a text is not pure
/// ASCII are the differing ends decoded and compared as strings. A text ``LiteralLifter`` confirmed while it arrived
/// shares its start with the streamed text, so only the rest is compared, from the last ASCII character before it
/// (where canonical equivalence cannot reach across); a shared start without one is decoded whole. A long final
/// text whose start differs (leading whitespace too) is not confirmed while it arrives: it is held as it came, as a
/// rewrite is, and decoded once more for this comparison.
public enum FinalTextRule {
    /// Whether `final`, the `chat.end` text of a part whose streamed text is `streamed`, says the same.
    public static func saysTheSame(streamed: UnsafeBufferPointer<UInt8>, final: OutputText) -> Bool {
        final.saysTheSame(asStreamed: streamed)
    }

    /// Whether the text made of the first `shared` bytes of `streamed` followed by `rest` says the same as `streamed`.
    static func saysTheSame(
        _ streamed: UnsafeBufferPointer<UInt8>, sharing shared: Int, rest: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        // Leading whitespace is the same in both, unless the shared start is whitespace only and it goes on past it.
        let startsShared = shared > 0 && streamed[..<shared].contains { !isASCIIWhitespace($0) }
        var mine = streamed[shared...]
        var theirs = rest[...]
        if !startsShared {
            mine = mine.drop(while: isASCIIWhitespace)
            theirs = theirs.drop(while: isASCIIWhitespace)
        }
        mine = trimmingEnd(mine)
        theirs = trimmingEnd(theirs)
        if mine.count == theirs.count, mine.elementsEqual(theirs) { return true }
        guard mine.contains(where: { $0 >= 0x80 }) || theirs.contains(where: { $0 >= 0x80 }) else { return false }
        // From an ASCII character of the shared start on: a character starts there (the cut may fall inside one), and
        // nothing before it composes or reorders with what follows.
        let from = startsShared ? streamed[..<shared].lastIndex { $0 < 0x80 && !isASCIIWhitespace($0) } : nil
        let start = from ?? 0
        let streamedText = String(decoding: streamed[start...], as: UTF8.self)
        var finalBytes = Array(streamed[start..<shared])
        finalBytes.append(contentsOf: rest)
        let finalText = String(decoding: finalBytes, as: UTF8.self)
        return trimmed(streamedText, leading: from == nil) == trimmed(finalText, leading: from == nil)
    }

    private static func isASCIIWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    private static func trimmingEnd(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        var end = bytes.endIndex
        while end > bytes.startIndex, isASCIIWhitespace(bytes[end - 1]) { end -= 1 }
        return bytes[bytes.startIndex..<end]
    }

    /// `text` without Unicode whitespace at its end, and at its start when `leading`; compared with `==`, canonically.
    private static func trimmed(_ text: String, leading: Bool) -> Substring {
        let scalars = text.unicodeScalars
        var start = scalars.startIndex
        if leading {
            while start < scalars.endIndex, scalars[start].properties.isWhitespace {
                start = scalars.index(after: start)
            }
        }
        var end = scalars.endIndex
        while end > start, scalars[scalars.index(before: end)].properties.isWhitespace {
            end = scalars.index(before: end)
        }
        return Substring(scalars[start..<end])
    }
}
