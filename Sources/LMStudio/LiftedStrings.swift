/// A JSON payload with its long string values lifted out, so `JSONDecoder` parses only a small skeleton.
///
/// A `chat.end` repeats the whole reply; its texts stay in the event's bytes as ``OutputText``s, decoded
/// only if needed, which spares `JSONDecoder`'s own buffers for them. Each lifted string becomes the placeholder
/// `"\u0001<n>"` in the skeleton. A payload in which such a placeholder could already occur (any
/// `\u0001` escape or raw 0x01 byte), or whose long strings do not decode, is not lifted.
struct LiftedStrings {
    /// Strings of at least this many encoded bytes are lifted.
    static let minimumLength = 64 << 10

    /// The payload with each lifted string replaced by its placeholder.
    let skeleton: [UInt8]
    private let payload: [UInt8]
    /// Where each lifted string literal lies in `payload`; nil once put back.
    private var literals: [Range<Int>?]

    /// Lifts the long strings out of the JSON `payload`; nil when there are none or lifting would not be exact.
    init?(payload: [UInt8]) {
        guard payload.count >= Self.minimumLength,
              let (skeleton, literals) = payload.withUnsafeBufferPointer({ Self.lift($0) })
        else { return nil }
        self.payload = payload
        self.skeleton = skeleton
        self.literals = literals
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
            skeleton.append(contentsOf: "\"\\u0001\(literals.count)\"".utf8)
            literals.append(start..<index)
            copiedUpTo = index
        }
        guard !literals.isEmpty else { return nil }
        skeleton.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copiedUpTo...]))
        return (skeleton, literals)
    }

    /// Whether every lifted string was put back.
    var isRestored: Bool { literals.allSatisfy { $0 == nil } }

    /// The lifted text `value` stands for, still encoded (taken, so it is put back once), or `value` itself.
    mutating func restore(_ value: OutputText) -> OutputText {
        let placeholder = value.string
        guard placeholder.utf8.first == 0x01, let number = Int(placeholder.dropFirst()),
              literals.indices.contains(number), let literal = literals[number]
        else { return value }
        literals[number] = nil
        return OutputText(json: payload, literal: literal)
    }

    /// Whether a `\u0001` escape starts at `index`.
    private static func isPlaceholderEscape(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        index + 5 < bytes.count && bytes[index] == UInt8(ascii: "\\") && bytes[index + 1] == UInt8(ascii: "u")
            && bytes[index + 2] == UInt8(ascii: "0") && bytes[index + 3] == UInt8(ascii: "0")
            && bytes[index + 4] == UInt8(ascii: "0") && bytes[index + 5] == UInt8(ascii: "1")
    }
}
