/// An incremental Server-Sent Events parser: bytes in any chunking → complete events.
///
/// Work is linear in the input. Line ends may be `\n`, `\r\n` or `\r`, also
/// when a `\r\n` pair is split across chunks. `id:`, `retry:`, unknown fields
/// and `:` comments are ignored, as is a byte order mark opening the stream. Payloads are decoded as UTF-8 only once the
/// event is complete, invalid sequences becoming U+FFFD.
///
/// Fed with the digests of a chat's streamed texts (``feedRaw(_:confirmingAgainst:)``), the `data:` line of a
/// `chat.end` event that grows long has its long strings lifted out as it arrives (``LiteralLifter``), so a final
/// event repeating a long reply is never held whole; the event size limit then counts what is held.
public struct SSEParser: Sendable {
    /// The most bytes one event may buffer before ``SSEError/eventTooLarge(limit:)``.
    public let maxEventBytes: Int
    private var partialLine: [UInt8] = []
    /// Earlier pieces of a long line still missing its end, joined once when it ends: a growing array would copy
    /// itself at each doubling and, at its last one, hold the line twice.
    private var spilledLine: [[UInt8]] = []
    private var spilledCount = 0
    private var data: [UInt8] = []
    private var hasData = false
    private var name: [UInt8]?
    private var chunkEndedWithCarriageReturn = false
    /// How many bytes of a UTF-8 byte order mark opened the stream; `nil` once the stream is past its start.
    private var byteOrderMarkPrefix: Int? = 0
    private var failure: SSEError?
    /// The digests a long `chat.end` line is confirmed against, for the chunk being consumed.
    private var digests: StreamedTextDigests?
    /// Lifts the long strings out of the `data:` line arriving, once it grew long.
    private var lifter: LiteralLifter?
    /// The strings lifted out of the event's `data:` lines so far, numbered as their placeholders are.
    private var literals: [LiftedLiteral] = []
    /// The bytes `literals` hold.
    private var literalBytes = 0
    /// Marks this parser's placeholders, so no string a server sends can pass for one.
    private let literalToken = String(UInt64.random(in: .min ... .max), radix: 36) + ":"

    /// Creates a parser with an empty buffer.
    public init(maxEventBytes: Int = 16 << 20) {
        self.maxEventBytes = maxEventBytes
    }

    /// Consumes the next chunk and returns the events it completes.
    ///
    /// After an error the parser stays failed: every later call throws it again
    /// (until ``finish()``), and events completed earlier in the same chunk are dropped.
    public mutating func feed(_ bytes: some Collection<UInt8>) throws -> [SSEEvent] {
        try feedRaw(bytes).map(\.event)
    }

    /// Like ``feed(_:)``, with each event's name and data still as bytes, so a large payload is never copied into a
    /// `String`; a long `chat.end` line is confirmed against `digests` as it arrives.
    ///
    /// `digests` must include every delta of the events this parser dispatched before: the caller decodes those
    /// before feeding more, in pieces small enough that no line reaches ``LiftedStrings/minimumLength`` within one.
    mutating func feedRaw(_ bytes: some Collection<UInt8>, confirmingAgainst digests: StreamedTextDigests? = nil) throws
        -> [RawSSEEvent]
    {
        if let failure { throw failure }
        self.digests = digests
        defer { self.digests = nil }
        var events: [RawSSEEvent] = []
        do {
            let consumed: Void? = try bytes.withContiguousStorageIfAvailable { try consume($0, into: &events) }
            if consumed == nil {
                try Array(bytes).withUnsafeBufferPointer { try consume($0, into: &events) }
            }
        } catch let error as SSEError {
            // What the failed event held is freed now, not when the stream ends.
            self = SSEParser(maxEventBytes: maxEventBytes)
            failure = error
            throw error
        }
        return events
    }

    /// Ends the stream: an event still missing its blank line is discarded, as
    /// the SSE standard requires, and the parser is reset for a new stream.
    ///
    /// Returns the events this dispatches, which by that rule is none.
    public mutating func finish() -> [SSEEvent] {
        self = SSEParser(maxEventBytes: maxEventBytes)
        return []
    }

    private mutating func consume(_ buffer: UnsafeBufferPointer<UInt8>, into events: inout [RawSSEEvent])
        throws(SSEError)
    {
        let count = buffer.count
        var index = 0
        while let matched = byteOrderMarkPrefix, index < count {
            if buffer[index] == Self.byteOrderMark[matched] {
                index += 1
                byteOrderMarkPrefix = matched + 1 == Self.byteOrderMark.count ? nil : matched + 1
            } else {
                partialLine.append(contentsOf: Self.byteOrderMark[..<matched])
                byteOrderMarkPrefix = nil
            }
        }
        if chunkEndedWithCarriageReturn, count > 0 {
            chunkEndedWithCarriageReturn = false
            if buffer[0] == .lineFeed { index = 1 }
        }
        var lineStart = index
        while index < count {
            let byte = buffer[index]
            guard byte == .lineFeed || byte == .carriageReturn else {
                index += 1
                continue
            }
            let tail = UnsafeBufferPointer(rebasing: buffer[lineStart..<index])
            if lifter == nil, partialLine.isEmpty {
                try process(line: tail, into: &events)
            } else {
                // The line's last piece may be the one that starts lifting it.
                appendPartial(tail)
                if lifter != nil {
                    try finishLiftedLine()
                } else {
                    var line = takePartialLine()
                    try process(ownedLine: &line, into: &events)
                }
            }
            index += 1
            if byte == .carriageReturn {
                if index == count {
                    chunkEndedWithCarriageReturn = true
                } else if buffer[index] == .lineFeed {
                    index += 1
                }
            }
            lineStart = index
        }
        if lineStart < count {
            appendPartial(UnsafeBufferPointer(rebasing: buffer[lineStart..<count]))
            try checkSize()
        }
    }

    /// Pieces of a long line grow to at most this many bytes each.
    private static let spillPieceLength = 1 << 20

    /// Appends to the line still missing its end; a long one is kept in pieces rather than regrown, or, when it
    /// is a `chat.end` event's data, has its long strings lifted out.
    private mutating func appendPartial(_ bytes: UnsafeBufferPointer<UInt8>) {
        if lifter != nil {
            lifter?.feed(bytes)
            return
        }
        if partialLine.count + bytes.count > partialLine.capacity, partialLine.count >= LiftedStrings.minimumLength {
            if spilledLine.isEmpty, let digests, let value = chatEndDataStart() {
                var lifter = LiteralLifter(digests: digests, token: literalToken, firstNumber: literals.count)
                partialLine.withUnsafeBufferPointer { lifter.feed(UnsafeBufferPointer(rebasing: $0[value...])) }
                lifter.feed(bytes)
                partialLine = []
                self.lifter = lifter
                return
            }
            spilledCount += partialLine.count
            spilledLine.append(partialLine)
            partialLine = []
            partialLine.reserveCapacity(max(bytes.count, min(spilledCount, Self.spillPieceLength)))
        }
        partialLine.append(contentsOf: bytes)
    }

    /// The whole line assembled so far, in one array of its exact size; each piece is freed once copied.
    private mutating func takePartialLine() -> [UInt8] {
        var line: [UInt8] = []
        if !spilledLine.isEmpty {
            line.reserveCapacity(spilledCount + partialLine.count)
            for index in spilledLine.indices {
                line.append(contentsOf: spilledLine[index])
                spilledLine[index] = []
            }
            spilledLine = []
            spilledCount = 0
            line.append(contentsOf: partialLine)
            partialLine = []
        } else {
            swap(&line, &partialLine)
        }
        return line
    }

    /// Where the value of the partial line starts when it is the `data:` line of a `chat.end` event: named so by its
    /// `event:` line, or, without one, by a payload opening with that `type`.
    private func chatEndDataStart() -> Int? {
        let prefix = Self.dataPrefix
        guard partialLine.starts(with: prefix) else { return nil }
        let value =
            partialLine.count > prefix.count && partialLine[prefix.count] == .space ? prefix.count + 1 : prefix.count
        if let name, !name.isEmpty { return name.elementsEqual("chat.end".utf8) ? value : nil }
        return partialLine[value...].starts(with: Self.chatEndOpening) ? value : nil
    }

    private static let chatEndOpening: [UInt8] = Array(#"{"type":"chat.end""#.utf8)

    /// Ends a lifted line: its skeleton joins the event's data as any `data:` line would.
    private mutating func finishLiftedLine() throws(SSEError) {
        guard var lifter else { return }
        self.lifter = nil
        let (skeleton, lifted) = lifter.finish()
        literals.append(contentsOf: lifted)
        literalBytes += lifted.reduce(0) { $0 + $1.heldBytes }
        if hasData { data.append(.lineFeed) }
        data.append(contentsOf: skeleton)
        hasData = true
        try checkSize()
    }

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
    private static let dataPrefix: [UInt8] = Array("data:".utf8)

    /// Processes a line assembled across chunks; the first `data:` line of an event becomes the data buffer without a copy.
    private mutating func process(ownedLine line: inout [UInt8], into events: inout [RawSSEEvent]) throws(SSEError) {
        let prefix = Self.dataPrefix
        guard !hasData, line.starts(with: prefix) else {
            try line.withUnsafeBufferPointer { line throws(SSEError) in try process(line: line, into: &events) }
            return
        }
        let valueStart = line.count > prefix.count && line[prefix.count] == .space ? prefix.count + 1 : prefix.count
        line.removeSubrange(..<valueStart)
        swap(&data, &line)
        hasData = true
        try checkSize()
    }

    private mutating func process(line: UnsafeBufferPointer<UInt8>, into events: inout [RawSSEEvent]) throws(SSEError) {
        guard let first = line.first else {
            dispatch(into: &events)
            return
        }
        if first == .colon { return }
        let colon = line.firstIndex(of: .colon) ?? line.count
        let field = UnsafeBufferPointer(rebasing: line[..<colon])
        var valueStart = min(colon + 1, line.count)
        if valueStart < line.count, line[valueStart] == .space { valueStart += 1 }
        let value = UnsafeBufferPointer(rebasing: line[valueStart...])
        if field.elementsEqual("data".utf8) {
            if hasData { data.append(.lineFeed) }
            data.append(contentsOf: value)
            hasData = true
            try checkSize()
        } else if field.elementsEqual("event".utf8) {
            name = Array(value)
        }
    }

    private mutating func dispatch(into events: inout [RawSSEEvent]) {
        if hasData {
            var taken: [UInt8] = []
            swap(&taken, &data)
            var lifted: [LiftedLiteral] = []
            swap(&lifted, &literals)
            literalBytes = 0
            events.append(
                RawSSEEvent(
                    name: name.flatMap { $0.isEmpty ? nil : $0 }, data: taken, literals: lifted,
                    literalToken: literalToken))
        } else {
            data.removeAll(keepingCapacity: true)
        }
        hasData = false
        name = nil
    }

    private func checkSize() throws(SSEError) {
        if data.count + spilledCount + partialLine.count + (lifter?.heldBytes ?? 0) + literalBytes > maxEventBytes {
            throw SSEError.eventTooLarge(limit: maxEventBytes)
        }
    }
}

/// One dispatched event before UTF-8 decoding: the `event:` name (nil when absent or empty) and the joined `data:` lines.
struct RawSSEEvent: Sendable {
    var name: [UInt8]?
    /// The data; with `literals`, their skeleton (see ``LiteralLifter``).
    var data: [UInt8]
    /// The strings lifted out of the data as it arrived, if any.
    var literals: [LiftedLiteral] = []
    /// What follows `\u0001` in the placeholders of `literals`.
    var literalToken = ""

    /// The event with name and data decoded as UTF-8, invalid sequences becoming U+FFFD.
    var event: SSEEvent {
        SSEEvent(name: name.map { String(decoding: $0, as: UTF8.self) }, data: String(decoding: data, as: UTF8.self))
    }
}

/// One dispatched Server-Sent Event.
public struct SSEEvent: Sendable, Equatable {
    /// The `event:` field; nil when absent or empty.
    public var name: String?
    /// The `data:` lines joined with `\n`.
    public var data: String

    /// Creates an event.
    public init(name: String? = nil, data: String) {
        self.name = name
        self.data = data
    }
}

/// Why an event stream could not be parsed.
public enum SSEError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One event buffered more than `limit` bytes.
    case eventTooLarge(limit: Int)

    public var description: String {
        switch self {
        case .eventTooLarge(let limit): "a server event is larger than the \(limit)-byte limit"
        }
    }
}

extension UInt8 {
    fileprivate static let lineFeed = UInt8(ascii: "\n")
    fileprivate static let carriageReturn = UInt8(ascii: "\r")
    fileprivate static let colon = UInt8(ascii: ":")
    fileprivate static let space = UInt8(ascii: " ")
}
