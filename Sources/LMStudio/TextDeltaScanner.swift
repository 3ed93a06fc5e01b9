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
            while index < bytes.count, bytes[index] == .space || bytes[index] == .tab || bytes[index] == .lineFeed || bytes[index] == .carriageReturn {
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
            guard take(.quote) else { return nil }
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == .quote {
                    index += 1
                    return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index - 1]), as: UTF8.self)
                }
                if byte == .backslash { return escapedString(prefix: UnsafeBufferPointer(rebasing: bytes[start..<index])) }
                if byte < 0x20 { return nil }
                index += 1
            }
            return nil
        }

        /// The rest of a string from the first backslash on, after `prefix`, written straight into the string's storage.
        private mutating func escapedString(prefix: UnsafeBufferPointer<UInt8>) -> String? {
            // Unescaping never lengthens, so the rest of the input bounds the string; pages past its end stay untouched.
            var complete = false
            let text = String(unsafeUninitializedCapacity: prefix.count + bytes.count - index) { output in
                var count = output.initialize(fromContentsOf: prefix)
                func append(_ byte: UInt8) {
                    output[count] = byte
                    count += 1
                }
                while index < bytes.count {
                    let byte = bytes[index]
                    index += 1
                    switch byte {
                    case .quote:
                        complete = true
                        return count
                    case .backslash:
                        guard index < bytes.count else { return 0 }
                        let escape = bytes[index]
                        index += 1
                        switch escape {
                        case .quote, .backslash, .slash: append(escape)
                        case UInt8(ascii: "b"): append(0x08)
                        case UInt8(ascii: "f"): append(0x0C)
                        case UInt8(ascii: "n"): append(.lineFeed)
                        case UInt8(ascii: "r"): append(.carriageReturn)
                        case UInt8(ascii: "t"): append(.tab)
                        case UInt8(ascii: "u"):
                            guard let scalar = unicodeEscape() else { return 0 }
                            UTF8.encode(scalar) { append($0) }
                        default: return 0
                        }
                    default:
                        if byte < 0x20 { return 0 }
                        append(byte)
                    }
                }
                return 0
            }
            return complete ? text : nil
        }

        /// The scalar of a `\uXXXX` escape (just past its `u`), joining a surrogate pair; nil for a lone surrogate.
        private mutating func unicodeEscape() -> Unicode.Scalar? {
            guard let unit = hexUnit() else { return nil }
            switch unit {
            case 0xD800...0xDBFF:
                guard index + 1 < bytes.count, bytes[index] == .backslash, bytes[index + 1] == UInt8(ascii: "u") else { return nil }
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

private extension UInt8 {
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let comma = UInt8(ascii: ",")
    static let colon = UInt8(ascii: ":")
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
    static let slash = UInt8(ascii: "/")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let lineFeed = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
}
