/// Hides inline markup that a streaming reply has opened but not yet closed, so the live tail does not flash
/// `*E` or `[link](https://lms` as raw text before the closing delimiter arrives (what Streamdown calls "remend").
///
/// Only the last paragraph of the text (after its last blank line) is looked at. The first construct there that
/// is still open at the end (a code span's backticks, emphasis or strikethrough delimiters that could open, a
/// link or image whose `]` or `)` is missing, an autolink's `<`) is cut off with everything after it; committed
/// text never goes through here.
enum UnfinishedMarkup {
    /// `text` without its trailing unclosed inline construct; `text` itself when nothing is open.
    static func hidingUnclosed(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var start = 0
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0A {
                var next = index + 1
                while next < bytes.count && (bytes[next] == 0x20 || bytes[next] == 0x09) { next += 1 }
                if next < bytes.count && bytes[next] == 0x0A { start = next + 1 }
            }
            index += 1
        }
        guard let cut = firstUnclosed(bytes, from: start) else { return text }
        return String(decoding: bytes[..<cut], as: UTF8.self)
    }

    /// The offset of the first construct in `bytes[start...]` that is still open at the end.
    private static func firstUnclosed(_ bytes: [UInt8], from start: Int) -> Int? {
        var openers: [(offset: Int, byte: UInt8, length: Int)] = []
        var brackets: [Int] = []
        var index = start
        // An autolink's `<` is open when neither a `>` nor a space follows it: the last of each is found at the first
        // `<`, not by a search of the rest of the text at every one (16 KiB of `<a ` took 13 s to stream).
        lazy var lastClosingAngle = bytes.lastIndex(of: 0x3E) ?? -1
        lazy var lastSpace = bytes.lastIndex(of: 0x20) ?? -1
        func isSpace(_ offset: Int) -> Bool {
            guard offset >= start, offset < bytes.count else { return true }
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: return true
            default: return false
            }
        }
        func isAlphanumeric(_ offset: Int) -> Bool {
            guard offset >= start, offset < bytes.count else { return false }
            let byte = bytes[offset]
            return (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte >= 0x80
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 0x5C:
                index += 2
                continue
            case 0x60:
                var length = 0
                while index + length < bytes.count && bytes[index + length] == 0x60 { length += 1 }
                guard let close = closingRun(of: length, in: bytes, after: index + length) else {
                    return earliest(index, openers)
                }
                index = close + length
                continue
            case 0x2A, 0x5F, 0x7E:
                var length = 0
                while index + length < bytes.count && bytes[index + length] == byte { length += 1 }
                let before = index - 1
                let after = index + length
                let canClose = !isSpace(before)
                let canOpen = !isSpace(after) && !(byte == 0x5F && isAlphanumeric(before))
                if canClose, let match = openers.lastIndex(where: { $0.byte == byte }) {
                    openers.removeSubrange(match...)
                } else if canOpen && (byte != 0x7E || length >= 2) {
                    openers.append((index, byte, length))
                }
                index = after
                continue
            case 0x5B:
                brackets.append(index > start && bytes[index - 1] == 0x21 ? index - 1 : index)
            case 0x5D:
                guard let open = brackets.popLast() else { break }
                if index + 1 < bytes.count && bytes[index + 1] == 0x28 {
                    guard let close = bytes[(index + 1)...].firstIndex(of: 0x29) else {
                        return earliest(open, openers)
                    }
                    index = close + 1
                    continue
                }
                if index + 1 == bytes.count || (index + 2 == bytes.count && bytes[index + 1] == 0x5B) {
                    return earliest(open, openers)
                }
            case 0x3C:
                if index + 1 < bytes.count,
                    (0x41...0x5A).contains(bytes[index + 1]) || (0x61...0x7A).contains(bytes[index + 1]),
                    lastClosingAngle < index, lastSpace < index
                {
                    return earliest(index, openers)
                }
            default:
                break
            }
            index += 1
        }
        guard let bracket = brackets.first, bracket < (openers.first?.offset ?? Int.max),
            !bytes[bracket...].contains(0x0A)
        else {
            return openers.first?.offset
        }
        return bracket
    }

    private static func earliest(_ offset: Int, _ openers: [(offset: Int, byte: UInt8, length: Int)]) -> Int {
        min(offset, openers.first?.offset ?? offset)
    }

    private static func closingRun(of length: Int, in bytes: [UInt8], after start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            guard bytes[index] == 0x60 else {
                index += 1
                continue
            }
            var run = 0
            while index + run < bytes.count && bytes[index + run] == 0x60 { run += 1 }
            if run == length { return index }
            index += run
        }
        return nil
    }
}
