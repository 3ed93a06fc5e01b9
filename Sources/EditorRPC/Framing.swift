/// How protocol messages are delimited on the byte stream.
public enum Framing: String, Sendable, CaseIterable {
    /// One compact JSON object per line (the default).
    case jsonLines = "jsonl"
    /// `Content-Length: N` headers, a blank line, then N bytes of JSON (as LSP and Emacs' `jsonrpc.el` use).
    case lsp

    /// The bytes that carry `json` (compact JSON text without a newline) in this framing.
    public func frame(_ json: String) -> [UInt8] {
        switch self {
        case .jsonLines: return Array((json + "\n").utf8)
        case .lsp: return Array("Content-Length: \(json.utf8.count)\r\n\r\n".utf8) + Array(json.utf8)
        }
    }
}

/// One unit the parser found in the byte stream.
public enum Frame: Sendable, Equatable {
    /// The bytes of one message (not yet decoded).
    case message([UInt8])
    /// A message longer than the limit was skipped; carries the limit.
    case oversized(limit: Int)
    /// An LSP header block that could not be read; the parser resynchronises at the next header.
    case badHeader(String)
}

/// An incremental parser from bytes to frames: feed any split of the stream, get the same frames.
public struct FrameParser: Sendable {
    /// The default largest message: 16 MiB.
    public static let defaultLimit = 16 * 1024 * 1024

    public let framing: Framing
    public let limit: Int
    private var buffer: [UInt8] = []
    /// Bytes of the current line already scanned for a newline (JSON lines), or of the current body already
    /// searched for a header (LSP).
    private var scanned = 0
    /// Set while the rest of an oversized line is being thrown away.
    private var discarding = false
    /// The body length announced by the last header block (LSP).
    private var bodyLength: Int?

    /// Creates a parser that refuses messages longer than `limit` bytes.
    public init(framing: Framing, limit: Int = FrameParser.defaultLimit) {
        self.framing = framing
        self.limit = limit
    }

    /// Takes the next bytes of the stream and returns every frame they complete.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Frame] {
        buffer.append(contentsOf: bytes)
        var frames: [Frame] = []
        switch framing {
        case .jsonLines: parseLines(into: &frames)
        case .lsp: parseLSP(into: &frames)
        }
        return frames
    }

    private mutating func parseLines(into frames: inout [Frame]) {
        var start = 0
        var index = scanned
        while index < buffer.count {
            if buffer[index] == UInt8(ascii: "\n") {
                if discarding {
                    discarding = false
                } else {
                    var line = buffer[start..<index]
                    if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                    if line.contains(where: { !Self.isSpace($0) }) { frames.append(.message(Array(line))) }
                }
                start = index + 1
            } else if !discarding, index - start >= limit {
                discarding = true
                frames.append(.oversized(limit: limit))
            }
            index += 1
        }
        if discarding {
            buffer.removeAll(keepingCapacity: true)
            scanned = 0
        } else {
            buffer.removeFirst(start)
            scanned = buffer.count
        }
    }

    /// Ends the stream: returns an unterminated last line as a message, or reports an LSP message cut short.
    public mutating func finish() -> [Frame] {
        defer {
            buffer.removeAll()
            scanned = 0
            discarding = false
            bodyLength = nil
        }
        switch framing {
        case .jsonLines:
            var line = buffer[...]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            guard !discarding, line.contains(where: { !Self.isSpace($0) }) else { return [] }
            return [.message(Array(line))]
        case .lsp:
            var frames: [Frame] = []
            if let length = bodyLength {
                if discarding {
                    buffer.removeAll()
                } else {
                    guard buffer.count >= length else {
                        return [
                            .badHeader("the input ended \(length - buffer.count) bytes before the end of a message")
                        ]
                    }
                    frames.append(.message(Array(buffer[..<length])))
                    buffer.removeFirst(length)
                }
            }
            if buffer.contains(where: { !Self.isSpace($0) }) {
                frames.append(.badHeader("the input ended inside a header block"))
            }
            return frames
        }
    }

    /// LSP framing. A body is scanned for the next header as it arrives: `Content-Length: N` and a line end
    /// cannot occur in JSON text (not even inside a string, which holds no raw line ends), so one found there
    /// means the announced length was wrong, and parsing resumes at that header instead of losing the message.
    private mutating func parseLSP(into frames: inout [Frame]) {
        while true {
            if let length = bodyLength {
                let end = min(buffer.count, length)
                switch Self.findHeader(in: buffer, from: scanned, before: end) {
                case .found(let start):
                    if !discarding {
                        frames.append(.badHeader("a message was shorter than its Content-Length of \(length) bytes"))
                    }
                    buffer.removeFirst(start)
                    bodyLength = nil
                    discarding = false
                    scanned = 0
                    continue
                case .undecided(let position):
                    scanned = position
                }
                if discarding {
                    buffer.removeFirst(scanned)
                    bodyLength = length - scanned
                    scanned = 0
                    guard bodyLength == 0 else { return }
                    bodyLength = nil
                    discarding = false
                    continue
                }
                guard scanned == length else { return }
                frames.append(.message(Array(buffer[..<length])))
                buffer.removeFirst(length)
                bodyLength = nil
                scanned = 0
                continue
            }
            guard let end = Self.headerEnd(in: buffer) else {
                if buffer.count > 64 * 1024 {
                    buffer.removeAll()
                    frames.append(.badHeader("a header block longer than 64 KiB"))
                }
                return
            }
            let header = Array(buffer[..<end.start])
            buffer.removeFirst(end.next)
            guard let found = Self.contentLength(in: header) else {
                frames.append(.badHeader("no valid Content-Length header"))
                continue
            }
            if found.skipped > 0 { frames.append(.badHeader("\(found.skipped) bytes before a header were skipped")) }
            guard let length = found.length, length <= limit else {
                frames.append(.oversized(limit: limit))
                bodyLength = found.length ?? Int.max
                discarding = true
                continue
            }
            bodyLength = length
            if length == 0 {
                bodyLength = nil
                frames.append(.message([]))
            }
        }
    }

    /// Where a header search in a body stopped.
    private enum HeaderSearch {
        /// A header starts at this index.
        case found(Int)
        /// No header starts before this index; one may start there once more bytes arrive.
        case undecided(Int)
    }

    /// Looks for `Content-Length: digits` and a line end starting in `bytes[from..<end]`.
    private static func findHeader(in bytes: [UInt8], from: Int, before end: Int) -> HeaderSearch {
        var index = from
        while index < end {
            if bytes[index] | 0x20 == UInt8(ascii: "c") {
                switch headerLine(in: bytes, at: index) {
                case .some(true): return .found(index)
                case .none: return .undecided(index)
                case .some(false): break
                }
            }
            index += 1
        }
        return .undecided(end)
    }

    /// Whether a complete `Content-Length: digits` line starts at `start`; nil when the bytes end first.
    private static func headerLine(in bytes: [UInt8], at start: Int) -> Bool? {
        var index = start
        for letter in contentLengthName {
            guard index < bytes.count else { return nil }
            guard bytes[index] | 0x20 == letter else { return false }
            index += 1
        }
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        guard index < bytes.count else { return nil }
        guard bytes[index] == UInt8(ascii: ":") else { return false }
        index += 1
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        let digitsStart = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        guard index < bytes.count else { return nil }
        return index > digitsStart && (bytes[index] == UInt8(ascii: "\r") || bytes[index] == UInt8(ascii: "\n"))
    }

    /// `content-length` in lower case (header names are matched without regard to case).
    private static let contentLengthName = Array("content-length".utf8)

    /// The value of the last `Content-Length` header in a header block (nil length: more digits than an `Int`
    /// holds), and how many bytes of something else came before its line; nil when there is no valid one.
    private static func contentLength(in header: [UInt8]) -> (length: Int?, skipped: Int)? {
        var index = header.count - contentLengthName.count
        while index >= 0 {
            if zip(header[index...], contentLengthName).allSatisfy({ $0 | 0x20 == $1 }),
                let digits = headerValue(in: header, after: index)
            {
                let lineStart = header[..<index].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
                return (Int(digits), index - lineStart)
            }
            index -= 1
        }
        return nil
    }

    /// The digits of `: digits` ending the line after the header name at `index`, or nil.
    private static func headerValue(in header: [UInt8], after index: Int) -> Substring? {
        var rest = header[(index + contentLengthName.count)...]
        if let lineEnd = rest.firstIndex(where: { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }) {
            rest = rest[..<lineEnd]
        }
        let text = String(decoding: rest, as: UTF8.self).drop { $0 == " " || $0 == "\t" }
        guard text.first == ":" else { return nil }
        let digits = Substring(text.dropFirst().trimmingSpaces)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        return digits
    }

    /// Where the blank line ending a header block starts, and where the body starts.
    private static func headerEnd(in bytes: [UInt8]) -> (start: Int, next: Int)? {
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") {
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") { return (index, index + 2) }
                if index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "\r"),
                    bytes[index + 2] == UInt8(ascii: "\n")
                {
                    return (index, index + 3)
                }
            }
            index += 1
        }
        return nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
    }
}

extension Substring {
    /// The text without leading and trailing blanks (and a trailing carriage return).
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }
}
