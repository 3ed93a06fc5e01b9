/// Facts read from JSON text without decoding it: how deep it nests, and the text of a top-level member.
///
/// The server needs both before (or instead of) decoding: a message nested too deep is refused as such, and
/// a numeric request id is echoed as the client wrote it, which a `Double` cannot always hold.
enum JSONText {
    private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")

    /// The deepest nesting of arrays and objects in `bytes` (brackets inside strings do not count).
    static func depth(of bytes: [UInt8]) -> Int {
        var depth = 0
        var deepest = 0
        var strings = StringTracker()
        for byte in bytes where !strings.read(byte) {
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
        return deepest
    }

    /// Whether each byte of JSON text, read in order, is part of a string (its quotes and escapes included).
    private struct StringTracker {
        private(set) var inString = false
        private var escaped = false

        /// Reads the next byte; true when it belongs to a string.
        mutating func read(_ byte: UInt8) -> Bool {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == backslash {
                    escaped = true
                } else if byte == quote {
                    inString = false
                }
                return true
            }
            inString = byte == quote
            return inString
        }
    }

    /// The text of member `name` of the top-level object when its value is a string, number, `true`, `false`
    /// or `null` (the last such member when the name repeats); nil otherwise or when the text is not an object.
    static func scalarMember(_ name: String, in bytes: [UInt8]) -> String? {
        let wanted = Array("\"\(name)\"".utf8)
        var index = 0
        skipSpace(bytes, &index)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
        index += 1
        var found: String?
        while true {
            skipSpace(bytes, &index)
            let keyStart = index
            guard index < bytes.count, bytes[index] == quote, skipValue(bytes, &index) else { return found }
            let key = bytes[keyStart..<index]
            skipSpace(bytes, &index)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return found }
            index += 1
            skipSpace(bytes, &index)
            let valueStart = index
            guard skipValue(bytes, &index) else { return found }
            if key.elementsEqual(wanted), bytes[valueStart] != UInt8(ascii: "{"), bytes[valueStart] != UInt8(ascii: "[")
            {
                found = String(decoding: bytes[valueStart..<index], as: UTF8.self)
            }
            skipSpace(bytes, &index)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { return found }
            index += 1
        }
    }

    private static func skipSpace(_ bytes: [UInt8], _ index: inout Int) {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    /// Moves past one value (a string, a bracketed value, or a bare word or number); false when the text ends first.
    private static func skipValue(_ bytes: [UInt8], _ index: inout Int) -> Bool {
        guard index < bytes.count else { return false }
        var depth = 0
        var strings = StringTracker()
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if !strings.read(byte) {
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    if depth == 0 { return index > start }
                    depth -= 1
                case UInt8(ascii: ","), 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ":"):
                    if depth == 0 { return index > start }
                default: break
                }
            }
            index += 1
            if depth == 0, !strings.inString,
                bytes[start] == quote || bytes[start] == UInt8(ascii: "{") || bytes[start] == UInt8(ascii: "[")
            {
                return true
            }
        }
        return false
    }
}
