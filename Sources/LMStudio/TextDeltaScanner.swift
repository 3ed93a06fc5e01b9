/// Decodes the hot `message.delta` and `reasoning.delta` payloads without a general JSON pass.
///
/// Accepts exactly an object of the two string members `type` and `content`,
/// in either order, with JSON whitespace between tokens; the content may use
/// every JSON escape, `\u` surrogate pairs included. Anything else (other
/// members, escaped keys, a lone surrogate, a raw control character, trailing
/// bytes) gives nil, and ``ChatEventDecoder`` falls back to `JSONDecoder`, so
/// the result never differs from the general decoder's.
enum TextDeltaScanner {
    /// The delta event `data` encodes, or nil when it is anything unusual.
    static func event(in data: String) -> ChatEvent? {
        data.utf8.withContiguousStorageIfAvailable { event(in: $0) } ?? nil
    }

    /// The delta event the UTF-8 `bytes` encode, or nil when they are anything unusual.
    static func event(in bytes: UnsafeBufferPointer<UInt8>) -> ChatEvent? {
        var scanner = Cursor(bytes: bytes)
        return scanner.delta()
    }

    /// A read position in JSON bytes; ``LiftedStrings`` uses its string decoding too.
    struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        mutating func delta() -> ChatEvent? {
            guard take(.openBrace) else { return nil }
            var isReasoning: Bool?
            var content: String?
            for member in 0..<2 {
                if member == 1, !take(.comma) { return nil }
                guard let key = rawString(), take(.colon) else { return nil }
                if key.elementsEqual("type".utf8), isReasoning == nil {
                    guard let type = rawString() else { return nil }
                    if type.elementsEqual("message.delta".utf8) {
                        isReasoning = false
                    } else if type.elementsEqual("reasoning.delta".utf8) {
                        isReasoning = true
                    } else {
                        return nil
                    }
                } else if key.elementsEqual("content".utf8), content == nil {
                    guard let text = string() else { return nil }
                    content = text
                } else {
                    return nil
                }
            }
            guard take(.closeBrace) else { return nil }
            skipWhitespace()
            guard index == bytes.count, let isReasoning, let content else { return nil }
            return isReasoning ? .reasoningDelta(content) : .messageDelta(content)
        }

        /// Skips whitespace, then consumes `byte` if it comes next.
        mutating func take(_ byte: UInt8) -> Bool {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func skipWhitespace() {
            while index < bytes.count,
                bytes[index] == .space || bytes[index] == .tab || bytes[index] == .lineFeed
                    || bytes[index] == .carriageReturn
            {
                index += 1
            }
        }

        /// A string without escapes, as its bytes; nil for anything else.
        mutating func rawString() -> UnsafeBufferPointer<UInt8>? {
            guard take(.quote) else { return nil }
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == .quote {
                    index += 1
                    return UnsafeBufferPointer(rebasing: bytes[start..<index - 1])
                }
                if byte == .backslash || byte < 0x20 { return nil }
                index += 1
            }
            return nil
        }

        /// A string with any JSON escapes; nil when malformed or holding a lone surrogate.
        ///
        /// Bytes that are not UTF-8 become U+FFFD, as `ChatEventDecoder`'s repair pass makes them.
        mutating func string() -> String? {
            let quote = index
            guard take(.quote) else { return nil }
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == .quote {
                    index += 1
                    return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index - 1]), as: UTF8.self)
                }
                if byte == .backslash || byte < 0x20 { break }
                index += 1
            }
            index = quote
            // Unescaping never lengthens, so the rest of the input bounds the string; pages past its end stay untouched.
            var complete = false
            let text = String(unsafeUninitializedCapacity: bytes.count - start) { output in
                var count = 0
                complete = decodeString { run in
                    count += UnsafeMutableBufferPointer(rebasing: output[count...]).initialize(fromContentsOf: run)
                    return true
                }
                return complete ? count : 0
            }
            return complete ? text : nil
        }

        /// Decodes the string whose opening quote comes next, handing its UTF-8 bytes to `emit` in runs, escapes
        /// decoded; false when it is malformed or holds a lone surrogate, or when `emit` returns false (stop).
        ///
        /// Bytes that are not UTF-8 are handed on as they are.
        mutating func decodeString(_ emit: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
            guard take(.quote) else { return false }
            var runStart = index
            while index < bytes.count {
                let byte = bytes[index]
                guard byte == .quote || byte == .backslash else {
                    if byte < 0x20 { return false }
                    index += 1
                    continue
                }
                if index > runStart, !emit(UnsafeBufferPointer(rebasing: bytes[runStart..<index])) { return false }
                index += 1
                if byte == .quote { return true }
                guard index < bytes.count else { return false }
                let escape = bytes[index]
                index += 1
                var decoded: UInt8
                switch escape {
                case .quote, .backslash, .slash: decoded = escape
                case UInt8(ascii: "b"): decoded = 0x08
                case UInt8(ascii: "f"): decoded = 0x0C
                case UInt8(ascii: "n"): decoded = .lineFeed
                case UInt8(ascii: "r"): decoded = .carriageReturn
                case UInt8(ascii: "t"): decoded = .tab
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return false }
                    var encoded: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
                    let emitted = withUnsafeMutableBytes(of: &encoded) { raw in
                        var count = 0
                        UTF8.encode(scalar) {
                            raw[count] = $0
                            count += 1
                        }
                        return emit(
                            UnsafeBufferPointer(
                                start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count))
                    }
                    guard emitted else { return false }
                    runStart = index
                    continue
                default: return false
                }
                guard withUnsafePointer(to: &decoded, { emit(UnsafeBufferPointer(start: $0, count: 1)) }) else {
                    return false
                }
                runStart = index
            }
            return false
        }

        /// The scalar of a `\uXXXX` escape (just past its `u`), joining a surrogate pair; nil for a lone surrogate.
        private mutating func unicodeEscape() -> Unicode.Scalar? {
            guard let unit = hexUnit() else { return nil }
            switch unit {
            case 0xD800...0xDBFF:
                guard index + 1 < bytes.count, bytes[index] == .backslash, bytes[index + 1] == UInt8(ascii: "u") else {
                    return nil
                }
                index += 2
                guard let low = hexUnit(), (0xDC00...0xDFFF).contains(low) else { return nil }
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
            case 0xDC00...0xDFFF:
                return nil
            default:
                return Unicode.Scalar(unit)
            }
        }

        /// Four hex digits as a code unit.
        private mutating func hexUnit() -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }
    }
}

extension UInt8 {
    fileprivate static let openBrace = UInt8(ascii: "{")
    fileprivate static let closeBrace = UInt8(ascii: "}")
    fileprivate static let comma = UInt8(ascii: ",")
    fileprivate static let colon = UInt8(ascii: ":")
    fileprivate static let quote = UInt8(ascii: "\"")
    fileprivate static let backslash = UInt8(ascii: "\\")
    fileprivate static let slash = UInt8(ascii: "/")
    fileprivate static let space = UInt8(ascii: " ")
    fileprivate static let tab = UInt8(ascii: "\t")
    fileprivate static let lineFeed = UInt8(ascii: "\n")
    fileprivate static let carriageReturn = UInt8(ascii: "\r")
}
