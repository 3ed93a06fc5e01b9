/// Lifts the long string literals out of a JSON `data:` line while the line arrives, so a `chat.end` repeating a
/// long reply is never held whole.
///
/// Short literals and everything between them go to a skeleton; a literal reaching
/// ``LiftedStrings/minimumLength`` encoded bytes is replaced there by a placeholder (`"\u0001"`, the parser's
/// token, its number). A reply text (the `content` of an item of `result.output`) is decoded as it comes and
/// compared, at every checkpoint, with the streamed segments' digests (``StreamedTextDigests``): while a segment
/// confirms it, only the text since the last checkpoint is held. Any other long literal, and a text no segment
/// confirms past its first checkpoint, is kept as it came; a text that parts from its segment later is kept as the
/// confirmed prefix's digest and the decoded rest.
struct LiteralLifter {
    private let digests: StreamedTextDigests
    private let token: String
    private let firstNumber: Int
    private var skeleton: [UInt8] = []
    private var literals: [LiftedLiteral] = []
    /// The bytes `literals` hold.
    private var literalBytes = 0
    private var state = State.outside
    /// The keys leading to the skeleton's end: one entry per open object or array, the object's current key (nil in
    /// an array, or before a key).
    private var keys: [[UInt8]?] = []
    /// Where in the skeleton the content of the last short string lies: the key, when a colon follows.
    private var lastString: Range<Int>?
    /// The keys of a reply text: the `content` of an item of `result.output`.
    private static let replyTextKeys: [[UInt8]?] = [
        Array("result".utf8), Array("output".utf8), nil, Array("content".utf8)
    ]

    private enum State {
        case outside
        /// In a literal still short enough to stay in the skeleton, which it starts at `start`.
        case short(start: Int, escaped: Bool)
        case long(LongLiteral)
    }

    /// Starts a line; `digests` are the streamed texts its literals may repeat, `token` marks its placeholders,
    /// which are numbered from `firstNumber` (the event's earlier lines lifted that many).
    init(digests: StreamedTextDigests, token: String, firstNumber: Int = 0) {
        self.digests = digests
        self.token = token
        self.firstNumber = firstNumber
    }

    /// How many bytes the line holds so far, for the event size limit.
    var heldBytes: Int {
        var held = skeleton.count + literalBytes
        if case .long(let literal) = state { held += literal.heldBytes }
        return held
    }

    /// Takes the next bytes of the line.
    mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) {
        var index = 0
        while index < bytes.count {
            switch state {
            case .outside:
                let start = index
                while index < bytes.count, bytes[index] != .quote {
                    followStructure(bytes[index])
                    index += 1
                }
                if index < bytes.count {
                    index += 1
                    skeleton.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                    state = .short(start: skeleton.count - 1, escaped: false)
                } else {
                    skeleton.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                }
            case .short(let start, var escaped):
                let from = index
                var closed = false
                while index < bytes.count, !closed, skeleton.count + index - from < start + LiftedStrings.minimumLength
                {
                    let byte = bytes[index]
                    if escaped {
                        escaped = false
                    } else if byte == .backslash {
                        escaped = true
                    } else if byte == .quote {
                        closed = true
                    }
                    index += 1
                }
                skeleton.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[from..<index]))
                if closed {
                    lastString = (start + 1)..<(skeleton.count - 1)
                    state = .outside
                } else if skeleton.count - start >= LiftedStrings.minimumLength {
                    var literal = LongLiteral(digests: digests, comparing: keys == Self.replyTextKeys)
                    _ = skeleton[(start + 1)...].withUnsafeBufferPointer { literal.feedContent($0) }
                    skeleton.removeSubrange(start...)
                    skeleton.append(
                        contentsOf: LiftedStrings.placeholder(firstNumber + literals.count, token: token).utf8)
                    state = .long(literal)
                } else {
                    state = .short(start: start, escaped: escaped)
                }
            case .long(var literal):
                state = .outside
                let consumed = literal.feedContent(UnsafeBufferPointer(rebasing: bytes[index...]))
                index += consumed
                if literal.isClosed {
                    append(literal.finish())
                } else {
                    state = .long(literal)
                }
            }
        }
    }

    /// Follows a byte of the skeleton outside strings: objects and arrays open and close, a colon makes the last
    /// string the current key, a comma ends it.
    private mutating func followStructure(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["): keys.append(nil)
        case UInt8(ascii: "}"), UInt8(ascii: "]"): _ = keys.popLast()
        case UInt8(ascii: ","): if !keys.isEmpty { keys[keys.count - 1] = nil }
        case UInt8(ascii: ":"): if !keys.isEmpty { keys[keys.count - 1] = lastString.map { Array(skeleton[$0]) } }
        default: break
        }
    }

    private mutating func append(_ literal: LiftedLiteral) {
        literals.append(literal)
        literalBytes += literal.heldBytes
        lastString = nil
    }

    /// Ends the line: the skeleton and the lifted literals, in placeholder order.
    mutating func finish() -> (skeleton: [UInt8], literals: [LiftedLiteral]) {
        if case .long(var literal) = state { append(literal.finish()) }
        state = .outside
        return (skeleton, literals)
    }
}

/// A long string literal taken out of an event's line (see ``LiteralLifter``).
enum LiftedLiteral: Sendable {
    /// The literal as it came, quotes included; it decodes.
    case encoded([UInt8])
    /// Text that starts with `prefixCount` bytes a streamed segment confirmed (their digest is `prefixDigest`)
    /// and goes on with `rest`, decoded.
    case confirmed(prefixCount: Int, prefixDigest: Int, rest: [UInt8])
    /// A literal that does not decode (an invalid escape, a raw control character, a lone surrogate).
    case invalid

    /// How many bytes it holds.
    var heldBytes: Int {
        switch self {
        case .encoded(let bytes): bytes.count
        case .confirmed(_, _, let rest): rest.count
        case .invalid: 0
        }
    }
}

/// A long literal arriving: its content is scanned for the closing quote and, while a streamed segment may
/// confirm it, decoded and digested.
private struct LongLiteral {
    private let digests: StreamedTextDigests
    /// The literal as it came, opening quote included, while it may still have to be kept that way.
    private var encoded: [UInt8]? = [.quote]
    /// Content not decoded yet: at most an escape (or surrogate pair) that may go on in the next bytes.
    private var pending: [UInt8] = []
    private var escaped = false
    private(set) var isClosed = false
    private var mode = Mode.matching
    private var hasher = Hasher()
    private var count = 0
    private var checkpoint = 0
    /// Segments that confirmed every checkpoint so far.
    private var candidates: [Int]
    private var prefix: (count: Int, digest: Int)?
    /// Decoded text past the confirmed prefix.
    private var window: [UInt8] = []

    private enum Mode {
        /// Decoding, digesting and comparing with the candidates.
        case matching
        /// Parted from its segment after a confirmed prefix: decoding into `window`.
        case diverged
        /// Kept as it came (`encoded`).
        case kept
        case invalid
    }

    /// A literal that `digests` may confirm when `comparing`, else one kept as it comes.
    init(digests: StreamedTextDigests, comparing: Bool) {
        self.digests = digests
        candidates = comparing ? Array(digests.segments.indices) : []
        if !comparing { mode = .kept }
    }

    var heldBytes: Int { (encoded?.count ?? 0) + pending.count + window.count }

    /// Takes content bytes up to and including the closing quote; returns how many it took.
    mutating func feedContent(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if escaped {
                escaped = false
            } else if byte == .backslash {
                escaped = true
            } else if byte == .quote {
                isClosed = true
                break
            }
        }
        let content = UnsafeBufferPointer(rebasing: bytes[..<(isClosed ? index - 1 : index)])
        encoded?.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[..<index]))
        if mode == .matching || mode == .diverged {
            pending.append(contentsOf: content)
            decodePending()
        }
        return index
    }

    /// The literal, once closed (or the line ended).
    mutating func finish() -> LiftedLiteral {
        switch mode {
        case .invalid:
            return .invalid
        case .kept:
            return keptLiteral()
        case .diverged:
            guard isClosed, pending.isEmpty, let prefix else { return .invalid }
            return .confirmed(prefixCount: prefix.count, prefixDigest: prefix.digest, rest: window)
        case .matching:
            guard isClosed, pending.isEmpty else { return .invalid }
            let digest = hasher.finalize()
            if candidates.contains(where: {
                digests.segments[$0].count == count && digests.segments[$0].digest == digest
            }) {
                return .confirmed(prefixCount: count, prefixDigest: digest, rest: [])
            }
            guard let prefix else { return keptLiteral() }
            return .confirmed(prefixCount: prefix.count, prefixDigest: prefix.digest, rest: window)
        }
    }

    private func keptLiteral() -> LiftedLiteral {
        guard isClosed, let encoded else { return .invalid }
        let decodes = encoded.withUnsafeBufferPointer { bytes in
            var cursor = TextDeltaScanner.Cursor(bytes: bytes, index: 0)
            return cursor.decodeString { _ in true } && cursor.index == bytes.count
        }
        return decodes ? .encoded(encoded) : .invalid
    }

    /// Decodes `pending` up to where an escape may go on in later bytes (all of it once closed).
    private mutating func decodePending() {
        let end = isClosed ? pending.count : Self.decodableEnd(of: pending)
        guard end > 0 else { return }
        var quoted: [UInt8] = []
        quoted.reserveCapacity(end + 2)
        quoted.append(.quote)
        quoted.append(contentsOf: pending[..<end])
        quoted.append(.quote)
        pending.removeSubrange(..<end)
        let decoded = quoted.withUnsafeBufferPointer { bytes in
            var cursor = TextDeltaScanner.Cursor(bytes: bytes, index: 0)
            return cursor.decodeString { run in take(run) } && cursor.index == bytes.count
        }
        if !decoded, mode != .kept { mode = .invalid }
        if mode == .kept || mode == .invalid {
            pending = []
            window = []
        }
    }

    /// Digests, compares and holds one run of decoded text; false once nothing more needs decoding.
    private mutating func take(_ run: UnsafeBufferPointer<UInt8>) -> Bool {
        guard mode == .matching else {
            window.append(contentsOf: run)
            return mode == .diverged
        }
        var rest = run
        while !rest.isEmpty, mode == .matching {
            let room = StreamedTextDigests.checkpointBytes - count % StreamedTextDigests.checkpointBytes
            let taken = min(room, rest.count)
            let piece = UnsafeBufferPointer(rebasing: rest[..<taken])
            hasher.combine(bytes: UnsafeRawBufferPointer(piece))
            window.append(contentsOf: piece)
            count += taken
            rest = UnsafeBufferPointer(rebasing: rest[taken...])
            if taken == room { passCheckpoint() }
        }
        if mode == .diverged { window.append(contentsOf: rest) }
        return mode != .kept
    }

    /// Keeps the candidates whose checkpoint digest equals the text's; with none left, the literal is kept whole
    /// (no prefix confirmed yet) or as its confirmed prefix and the rest.
    private mutating func passCheckpoint() {
        let digest = hasher.finalize()
        let number = checkpoint
        checkpoint += 1
        candidates.removeAll {
            digests.segments[$0].checkpoints.count <= number || digests.segments[$0].checkpoints[number] != digest
        }
        if !candidates.isEmpty {
            prefix = (count, digest)
            window.removeAll(keepingCapacity: true)
            encoded = nil
        } else if prefix == nil {
            mode = .kept
        } else {
            mode = .diverged
        }
    }

    /// The length of the part of `content` (a literal's content from an escape boundary on) that decodes now:
    /// all of it, less an escape it ends inside, and less a high surrogate escape its low half may follow.
    static func decodableEnd(of content: [UInt8]) -> Int {
        var index = 0
        var lastEscape: Int?
        var escapeBefore: Int?
        while index < content.count {
            if content[index] == .backslash {
                escapeBefore = lastEscape
                lastEscape = index
                index += index + 1 < content.count && content[index + 1] == UInt8(ascii: "u") ? 6 : 2
            } else {
                index += 1
            }
        }
        var end = content.count
        if let lastEscape, index > content.count {
            end = lastEscape
        } else if let lastEscape, isHighSurrogateEscape(content, at: lastEscape), lastEscape + 6 == content.count {
            end = lastEscape
        }
        if end == lastEscape, let escapeBefore, escapeBefore + 6 == end,
            isHighSurrogateEscape(content, at: escapeBefore)
        {
            end = escapeBefore
        }
        return end
    }

    private static func isHighSurrogateEscape(_ content: [UInt8], at index: Int) -> Bool {
        guard index + 6 <= content.count, content[index + 1] == UInt8(ascii: "u"),
            content[index + 2] == UInt8(ascii: "d") || content[index + 2] == UInt8(ascii: "D")
        else { return false }
        return (UInt8(ascii: "8")...UInt8(ascii: "9")).contains(content[index + 3])
            || (UInt8(ascii: "a")...UInt8(ascii: "b")).contains(content[index + 3])
            || (UInt8(ascii: "A")...UInt8(ascii: "B")).contains(content[index + 3])
    }
}

extension UInt8 {
    fileprivate static let quote = UInt8(ascii: "\"")
    fileprivate static let backslash = UInt8(ascii: "\\")
}
