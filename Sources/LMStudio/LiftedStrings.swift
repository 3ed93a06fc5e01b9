/// A JSON payload with its long string values lifted out, so `JSONDecoder` parses only a small skeleton.
///
/// A `chat.end` repeats the whole reply; its texts stay in the event's bytes as ``OutputText``s, decoded
/// only if needed, which spares `JSONDecoder`'s own buffers for them. Each lifted string becomes the placeholder
/// `"\u0001<n>"` in the skeleton. A payload in which such a placeholder could already occur (any
/// `\u0001` escape or raw 0x01 byte), or whose long strings do not decode, is not lifted.
///
/// A line ``LiteralLifter`` lifted while it arrived comes as its skeleton and literals; its placeholders carry the
/// parser's random token after the `\u0001`, so no string the server sends can pass for one.
struct LiftedStrings {
    /// Strings of at least this many encoded bytes are lifted.
    static let minimumLength = 64 << 10

    /// The payload with each lifted string replaced by its placeholder.
    private(set) var skeleton: [UInt8]
    private let payload: [UInt8]
    private let token: String
    /// Each lifted string; nil once put back.
    private var literals: [Literal?]

    private enum Literal {
        /// A literal's place in `payload`.
        case range(Range<Int>)
        case lifted(LiftedLiteral)
    }

    /// Lifts the long strings out of the JSON `payload`; nil when there are none or lifting would not be exact.
    init?(payload: [UInt8]) {
        guard payload.count >= Self.minimumLength,
            let (skeleton, literals) = payload.withUnsafeBufferPointer({ Self.lift($0) })
        else { return nil }
        self.payload = payload
        self.skeleton = skeleton
        self.literals = literals.map { $0.map(Literal.range) }
        token = ""
    }

    /// A payload lifted as it arrived: its skeleton, its literals in placeholder order, and the placeholders' token.
    init(skeleton: [UInt8], literals: [LiftedLiteral], token: String) {
        self.skeleton = skeleton
        self.literals = literals.map(Literal.lifted)
        self.token = token
        payload = []
    }

    /// Whether a literal lifted as it arrived does not decode, which makes the payload unreadable.
    var hasUndecodableLiteral: Bool {
        literals.contains { if case .lifted(.invalid)? = $0 { true } else { false } }
    }

    /// The payload with the strings lifted as they came put back in place; only the texts confirmed against the
    /// streamed reply, which are not held as they came, stay lifted.
    func keptStringsPutBack() -> LiftedStrings {
        var whole = self
        var skeleton: [UInt8] = []
        var copiedUpTo = 0
        for (number, literal) in literals.enumerated() {
            guard case .lifted(.encoded(let bytes))? = literal else { continue }
            let placeholder = Array(Self.placeholder(number, token: token).utf8)
            guard let start = self.skeleton[copiedUpTo...].firstRange(of: placeholder)?.lowerBound else { continue }
            skeleton.append(contentsOf: self.skeleton[copiedUpTo..<start])
            skeleton.append(contentsOf: bytes)
            copiedUpTo = start + placeholder.count
            whole.literals[number] = nil
        }
        skeleton.append(contentsOf: self.skeleton[copiedUpTo...])
        whole.skeleton = skeleton
        return whole
    }

    /// The JSON literal standing for lifted string `number`.
    static func placeholder(_ number: Int, token: String) -> String {
        "\"\\u0001\(token)\(number)\""
    }

    private static func lift(_ bytes: UnsafeBufferPointer<UInt8>) -> ([UInt8], [Range<Int>?])? {
        var skeleton: [UInt8] = []
        var literals: [Range<Int>?] = []
        var copiedUpTo = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x01 { return nil }
            guard byte == UInt8(ascii: "\"") else {
                index += 1
                continue
            }
            let start = index
            index += 1
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                if bytes[index] == 0x01 || Self.isPlaceholderEscape(bytes, at: index) { return nil }
                index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
            }
            guard index < bytes.count else { return nil }
            index += 1
            guard index - start >= Self.minimumLength else { continue }
            var cursor = TextDeltaScanner.Cursor(bytes: UnsafeBufferPointer(rebasing: bytes[..<index]), index: start)
            guard cursor.decodeString({ _ in true }), cursor.index == index else { return nil }
            if skeleton.isEmpty { skeleton.reserveCapacity(min(bytes.count, 4 << 10)) }
            skeleton.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copiedUpTo..<start]))
            skeleton.append(contentsOf: Self.placeholder(literals.count, token: "").utf8)
            literals.append(start..<index)
            copiedUpTo = index
        }
        guard !literals.isEmpty else { return nil }
        skeleton.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copiedUpTo...]))
        return (skeleton, literals)
    }

    /// Whether every lifted string was put back.
    var isRestored: Bool { literals.allSatisfy { $0 == nil } }

    /// Whether every lifted string not put back is a text confirmed against the streamed reply.
    var holdsOnlyConfirmedTexts: Bool {
        literals.allSatisfy { if case .lifted(.confirmed)? = $0 { true } else { $0 == nil } }
    }

    /// The lifted text `value` stands for (taken, so it is put back once), or `value` itself.
    mutating func restore(_ value: OutputText) -> OutputText {
        guard let number = literalNumber(value.string), let literal = literals[number] else { return value }
        let restored: OutputText
        switch literal {
        case .range(let range): restored = OutputText(json: payload, literal: range)
        case .lifted(.encoded(let bytes)): restored = OutputText(json: bytes, literal: 0..<bytes.count)
        case .lifted(.confirmed(let count, let digest, let rest)):
            restored = OutputText(streamedPrefix: count, digest: digest, rest: rest)
        case .lifted(.invalid): return value
        }
        literals[number] = nil
        return restored
    }

    /// The lifted string `value` stands for, decoded, or `value` itself; a text confirmed against the streamed
    /// reply is not a string on its own, so it stays lifted (and the payload is read whole, if it can be).
    mutating func restore(_ value: String) -> String {
        guard let number = literalNumber(value), let literal = literals[number] else { return value }
        let restored: String?
        switch literal {
        case .range(let range): restored = OutputText(json: payload, literal: range).string
        case .lifted(.encoded(let bytes)): restored = OutputText(json: bytes, literal: 0..<bytes.count).string
        case .lifted(.confirmed), .lifted(.invalid): restored = nil
        }
        guard let restored else { return value }
        literals[number] = nil
        return restored
    }

    /// The number of the lifted string `placeholder` stands for.
    private func literalNumber(_ placeholder: String?) -> Int? {
        guard let placeholder, placeholder.utf8.first == 0x01, placeholder.dropFirst().hasPrefix(token),
            let number = Int(placeholder.dropFirst(1 + token.count)), literals.indices.contains(number)
        else { return nil }
        return number
    }

    /// Whether a `\u0001` escape starts at `index`.
    private static func isPlaceholderEscape(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        index + 5 < bytes.count && bytes[index] == UInt8(ascii: "\\") && bytes[index + 1] == UInt8(ascii: "u")
            && bytes[index + 2] == UInt8(ascii: "0") && bytes[index + 3] == UInt8(ascii: "0")
            && bytes[index + 4] == UInt8(ascii: "0") && bytes[index + 5] == UInt8(ascii: "1")
    }
}
