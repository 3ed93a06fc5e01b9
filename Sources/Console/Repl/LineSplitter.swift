/// Cuts the bytes a line-mode front end sends into lines: each ended by LF, CR or CR LF (comint sends LF, a
/// terminal's Enter CR); Ctrl-D (EOT) ends the input. A pure incremental state machine: feed it what `read` returns.
struct LineSplitter: Sendable, Equatable {
    /// A line longer than this (in UTF-8 bytes) is cut here: what was typed so far becomes a line of its own.
    static let maximumLineBytes = 16 << 20

    /// What the splitter has for the reader.
    enum Piece: Sendable, Equatable {
        /// A whole line, without its line end.
        case line(String)
        /// Ctrl-D, or the end of the input: nothing more comes.
        case end
    }

    private var pending: [UInt8] = []
    private var lines: [String] = []
    private var taken = 0
    /// The last byte was a CR: an LF right after it belongs to the same line end.
    private var afterCarriageReturn = false
    private var ended = false

    /// Creates a splitter that has seen nothing.
    init() {}

    /// Takes bytes read from the front end; bytes after Ctrl-D are ignored.
    mutating func feed(_ bytes: some Sequence<UInt8>) {
        for byte in bytes where !ended {
            let joinsLineEnd = afterCarriageReturn && byte == 0x0A
            afterCarriageReturn = byte == 0x0D
            switch byte {
            case _ where joinsLineEnd:
                continue
            case 0x0A, 0x0D:
                completeLine()
            case 0x04:
                ended = true
            default:
                pending.append(byte)
                if pending.count >= Self.maximumLineBytes { completeLine() }
            }
        }
    }

    /// The input ended (`read` returned 0): the lines already complete are still returned, then `.end`.
    mutating func finish() {
        ended = true
    }

    /// The next line, or `.end` once the input ended and every line was taken; nil while a line is still arriving.
    mutating func next() -> Piece? {
        if taken < lines.count {
            defer {
                taken += 1
                if taken == lines.count {
                    lines.removeAll()
                    taken = 0
                }
            }
            return .line(lines[taken])
        }
        return ended ? .end : nil
    }

    /// Drops everything not yet returned (Ctrl-C at the prompt) and returns it, lines joined by newlines.
    mutating func discard() -> String {
        let text = (lines[taken...] + [String(decoding: pending, as: UTF8.self)]).filter { !$0.isEmpty }.joined(
            separator: "\n")
        lines.removeAll()
        taken = 0
        pending.removeAll()
        return text
    }

    private mutating func completeLine() {
        lines.append(String(decoding: pending, as: UTF8.self))
        pending.removeAll(keepingCapacity: true)
    }
}
