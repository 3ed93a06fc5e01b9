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
    /// Bytes of the current line already scanned for a newline.
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

    private mutating func parseLSP(into frames: inout [Frame]) {
        while true {
            if let length = bodyLength {
                if discarding {
                    let dropped = min(length, buffer.count)
                    buffer.removeFirst(dropped)
                    bodyLength = length - dropped
                    if bodyLength == 0 { bodyLength = nil; discarding = false }
                    if buffer.isEmpty { return }
                    continue
                }
                guard buffer.count >= length else { return }
                frames.append(.message(Array(buffer[..<length])))
                buffer.removeFirst(length)
                bodyLength = nil
                continue
            }
            guard let end = Self.headerEnd(in: buffer) else {
                if buffer.count > 64 * 1024 {
                    buffer.removeAll()
                    frames.append(.badHeader("a header block longer than 64 KiB"))
                }
                return
            }
            let header = String(decoding: buffer[..<end.start], as: UTF8.self)
            buffer.removeFirst(end.next)
            var length: Int?
            for line in header.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" }) {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingSpaces.lowercased() == "content-length" {
                    length = Int(parts[1].trimmingSpaces)
                }
            }
            guard let length, length >= 0 else {
                frames.append(.badHeader("no valid Content-Length header"))
                continue
            }
            bodyLength = length
            if length > limit {
                discarding = true
                frames.append(.oversized(limit: limit))
            }
            if length == 0 { bodyLength = nil; discarding = false; frames.append(.message([])) }
        }
    }

    /// Where the blank line ending a header block starts, and where the body starts.
    private static func headerEnd(in bytes: [UInt8]) -> (start: Int, next: Int)? {
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") {
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") { return (index, index + 2) }
                if index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "\r"), bytes[index + 2] == UInt8(ascii: "\n") {
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
