/// The text of a `chat.end` output item: a `String`, or a long text still as its JSON string in the event's bytes.
///
/// A `chat.end` repeats the whole reply. Kept encoded, its text is compared with the streamed text in place
/// (``commonPrefix(withUTF8:)``) and decoded only when it adds to or rewrites what streamed, so a confirmed
/// reply is never held twice. Both forms read the same: invalid UTF-8 becomes U+FFFD.
///
/// A text ``LiteralLifter`` confirmed while it arrived holds only a digest of its start, which the streamed reply
/// also holds: such a text is read against that reply (``commonPrefix(withUTF8:)``, ``resolved(in:at:)``).
public struct OutputText: Sendable, Equatable, ExpressibleByStringLiteral, CustomStringConvertible {
    private enum Storage: Sendable {
        case decoded(String)
        /// The event's bytes and the range of a JSON string literal in them (quotes included) known to decode.
        case encoded([UInt8], Range<Int>)
        /// Text whose first `prefixCount` UTF-8 bytes the streamed reply holds (their ``TextDigest`` is `digest`),
        /// followed by the bytes `rest` (the cut between them may fall inside a character).
        case streamed(prefixCount: Int, digest: Int, rest: [UInt8])
    }

    private let storage: Storage

    /// A text already decoded.
    public init(_ string: String) {
        storage = .decoded(string)
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// The JSON string literal at `range` of `bytes`, which the caller checked decodes.
    init(json bytes: [UInt8], literal range: Range<Int>) {
        storage = .encoded(bytes, range)
    }

    /// A text that starts with `prefixCount` bytes of the streamed reply whose digest is `digest`, then `rest`.
    init(streamedPrefix prefixCount: Int, digest: Int, rest: [UInt8]) {
        storage = .streamed(prefixCount: prefixCount, digest: digest, rest: rest)
    }

    /// The text, decoded now if it is still encoded; nil for a text confirmed against the streamed reply, which
    /// only that reply can complete (``resolved(in:at:)``).
    public var string: String? {
        switch storage {
        case .decoded(let string): return string
        case .encoded: return dropFirst(utf8: 0)
        case .streamed: return nil
        }
    }

    /// Whether the text starts with part of the streamed reply that it does not hold (see ``resolved(in:at:)``).
    public var needsStreamedText: Bool {
        if case .streamed = storage { true } else { false }
    }

    /// The whole text, its confirmed start read from `source` at `offset`; nil when the bytes there are not the
    /// ones the digest confirmed. A text that needs no streamed text is returned as it is.
    public func resolved(in source: UnsafeBufferPointer<UInt8>, at offset: Int) -> String? {
        guard case .streamed(let prefixCount, _, let rest) = storage else { return string }
        guard confirms(source, at: offset) else { return nil }
        // One copy; the cut between the two parts may fall inside a character, so they are decoded together.
        return String(unsafeUninitializedCapacity: prefixCount + rest.count) { output in
            let written = UnsafeMutableBufferPointer(rebasing: output[..<prefixCount])
                .initialize(fromContentsOf: UnsafeBufferPointer(rebasing: source[offset..<offset + prefixCount]))
            return written + UnsafeMutableBufferPointer(rebasing: output[written...]).initialize(fromContentsOf: rest)
        }
    }

    /// Whether `source` holds, at `offset`, the confirmed start of this text (always true for other texts).
    func confirms(_ source: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        guard case .streamed(let prefixCount, let digest, _) = storage else { return true }
        guard offset >= 0, offset <= source.count, source.count - offset >= prefixCount else { return false }
        return TextDigest.of(UnsafeBufferPointer(rebasing: source[offset..<offset + prefixCount])) == digest
    }

    /// Whether this text, as the final text of a part whose streamed text is `streamed`, says the same
    /// (``FinalTextRule``). A confirmed start is compared by its digest; the rest in place.
    func saysTheSame(asStreamed streamed: UnsafeBufferPointer<UInt8>) -> Bool {
        switch storage {
        case .decoded(var string):
            return string.withUTF8 { FinalTextRule.saysTheSame(streamed, sharing: 0, rest: $0) }
        case .encoded:
            guard var string else { return false }
            return string.withUTF8 { FinalTextRule.saysTheSame(streamed, sharing: 0, rest: $0) }
        case .streamed(let prefixCount, _, let rest):
            guard confirms(streamed, at: 0) else { return false }
            return rest.withUnsafeBufferPointer { FinalTextRule.saysTheSame(streamed, sharing: prefixCount, rest: $0) }
        }
    }

    public var description: String { string ?? "" }

    /// How many leading UTF-8 bytes this text shares with `other`, and whether that is all of this text; compared in place.
    ///
    /// An encoded text is compared byte for byte before U+FFFD repair, so a text holding invalid UTF-8 may report less
    /// than its decoded form shares; callers fall back to ``string`` when the comparison does not confirm.
    public func commonPrefix(withUTF8 other: UnsafeBufferPointer<UInt8>) -> (count: Int, isWhole: Bool) {
        switch storage {
        case .decoded(let string):
            var count = 0
            for (mine, theirs) in zip(string.utf8, other) {
                guard mine == theirs else { break }
                count += 1
            }
            return (count, count == string.utf8.count)
        case .streamed(let prefixCount, _, let rest):
            guard confirms(other, at: 0) else { return (0, false) }
            var same = 0
            while same < rest.count, prefixCount + same < other.count, rest[same] == other[prefixCount + same] {
                same += 1
            }
            return (prefixCount + same, same == rest.count)
        case .encoded(let bytes, let range):
            return bytes.withUnsafeBufferPointer { buffer in
                var cursor = TextDeltaScanner.Cursor(
                    bytes: UnsafeBufferPointer(rebasing: buffer[..<range.upperBound]), index: range.lowerBound)
                var count = 0
                let whole = cursor.decodeString { run in
                    let remaining = other.count - count
                    let compared = min(run.count, remaining)
                    var same = 0
                    while same < compared, run[same] == other[count + same] { same += 1 }
                    count += same
                    return same == run.count
                }
                return (count, whole)
            }
        }
    }

    /// The text after its first `count` UTF-8 bytes (a boundary ``commonPrefix(withUTF8:)`` reported); nil when
    /// that is inside a confirmed start this text does not hold.
    public func dropFirst(utf8 count: Int) -> String? {
        switch storage {
        case .streamed(let prefixCount, _, let rest):
            guard count >= prefixCount else { return nil }
            return String(decoding: rest.dropFirst(count - prefixCount), as: UTF8.self)
        case .decoded(let string):
            let utf8 = string.utf8
            return String(
                decoding: utf8[utf8.index(utf8.startIndex, offsetBy: min(count, utf8.count))...], as: UTF8.self)
        case .encoded(let bytes, let range):
            return bytes.withUnsafeBufferPointer { buffer in
                var cursor = TextDeltaScanner.Cursor(
                    bytes: UnsafeBufferPointer(rebasing: buffer[..<range.upperBound]), index: range.lowerBound)
                return String(unsafeUninitializedCapacity: range.count) { output in
                    var skipped = 0
                    var written = 0
                    let complete = cursor.decodeString { run in
                        let skip = min(run.count, count - skipped)
                        skipped += skip
                        written += UnsafeMutableBufferPointer(rebasing: output[written...])
                            .initialize(fromContentsOf: UnsafeBufferPointer(rebasing: run[skip...]))
                        return true
                    }
                    return complete ? written : 0
                }
            }
        }
    }

    public static func == (lhs: OutputText, rhs: OutputText) -> Bool {
        if case .streamed(let leftCount, let leftDigest, let leftRest) = lhs.storage,
            case .streamed(let rightCount, let rightDigest, let rightRest) = rhs.storage
        {
            return leftCount == rightCount && leftDigest == rightDigest && leftRest == rightRest
        }
        return !lhs.needsStreamedText && !rhs.needsStreamedText && lhs.string == rhs.string
    }
}
