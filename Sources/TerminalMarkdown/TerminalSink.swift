import SystemSupport

/// Where rendered terminal output goes.
public protocol TerminalSink {
    /// Appends `text` (already safe: renderer sequences and sanitised content only).
    mutating func write(_ text: String)
    /// Appends the UTF-8 `bytes`, as safe as `write(_:)`'s text: a step's lines, assembled as bytes (appending a
    /// line to a byte buffer costs a fifth of appending it to a string).
    mutating func write(bytes: [UInt8])
    /// Pushes buffered output to its destination; called once per update.
    mutating func flush()
}

extension TerminalSink {
    /// Does nothing: unbuffered sinks have nothing to push.
    public mutating func flush() {}

    /// Writes the bytes as a string.
    public mutating func write(bytes: [UInt8]) { write(String(decoding: bytes, as: UTF8.self)) }

    /// Writes `output` and then `lines`, each ended by `lineEnd`, a piece of about `pieceBytes` at a time, each
    /// piece flushed. When `stoppingOnCancellation` is set it returns false, leaving the rest unwritten, once the
    /// task is cancelled after a piece (Ctrl-C then stops a step of a backlog within a piece, however slowly the
    /// terminal reads). What did not fill a piece stays in `output`, for the caller to finish and write.
    mutating func writeLines(
        _ lines: [String], after output: inout [UInt8], stoppingOnCancellation: Bool,
        lineEnd: String = "\n", pieceBytes: Int = 16 << 10
    ) -> Bool {
        let endBytes = lineEnd.utf8.count
        var start = lines.startIndex
        while start < lines.endIndex {
            // The lines of one piece: up to the one that brings it to `pieceBytes`, copied at once into a buffer of
            // the piece's size (an append per line cost more than the copying).
            var pieceCount = output.count
            var stop = start
            while stop < lines.endIndex && pieceCount < pieceBytes {
                pieceCount += lines[stop].utf8.count + endBytes
                stop += 1
            }
            let before = output
            output = [UInt8](unsafeUninitializedCapacity: pieceCount) { buffer, count in
                func copy(_ bytes: UnsafeBufferPointer<UInt8>) {
                    count += UnsafeMutableBufferPointer(rebasing: buffer[count...]).initialize(fromContentsOf: bytes)
                }
                before.withUnsafeBufferPointer(copy)
                var end = lineEnd
                for var line in lines[start..<stop] {
                    line.withUTF8(copy)
                    end.withUTF8(copy)
                }
            }
            start = stop
            guard output.count >= pieceBytes else { break }
            write(bytes: output)
            flush()
            output = []
            if stoppingOnCancellation && Task.isCancelled { return false }
        }
        return true
    }
}

/// Collects everything written, for tests and for callers that want the text.
public struct StringSink: TerminalSink, Sendable {
    /// Everything written so far.
    public var output = ""

    /// Creates an empty sink.
    public init() {}

    public mutating func write(_ text: String) { output += text }
}

/// Discards output while still counting its bytes, for benchmarks.
public struct NullSink: TerminalSink, Sendable {
    /// UTF-8 bytes written so far.
    public var byteCount = 0

    /// Creates a sink that has seen nothing.
    public init() {}

    public mutating func write(_ text: String) { byteCount += text.utf8.count }

    public mutating func write(bytes: [UInt8]) { byteCount += bytes.count }
}

/// Buffers output and writes it to a file descriptor on `flush()`, retrying short writes and EINTR.
public struct FileDescriptorSink: TerminalSink {
    /// The descriptor written to; not closed by the sink.
    public let fd: Int32
    private var buffer: [UInt8] = []

    /// Creates a sink for `fd` (usually `STDOUT_FILENO`).
    public init(fd: Int32) { self.fd = fd }

    public mutating func write(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    public mutating func write(bytes: [UInt8]) { bytes.withUnsafeBufferPointer { append($0) } }

    /// Buffers `bytes`; 64 KiB or more are written straight from where they are, not copied into the buffer.
    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        if bytes.count >= 1 << 16 {
            flush()
            try? Descriptor.writeAll(fd, UnsafeRawBufferPointer(bytes))
            return
        }
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { flush() }
    }

    public mutating func flush() {
        try? Descriptor.writeAll(fd, buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
