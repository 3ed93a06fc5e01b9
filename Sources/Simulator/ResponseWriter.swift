import Glibc
import SystemSupport

/// Writes one HTTP response to a socket, cutting the bytes into writes as a `split` fault asks.
struct ResponseWriter {
    /// The connected socket.
    let fd: Int32
    /// How body bytes are cut into writes.
    let split: Faults.Split
    private var random: SplitMix64
    private var chunked = false
    private var pending: [UInt8] = []
    /// Set when the body goes out gzip-compressed (`Content-Encoding: gzip`), as a proxy might send it.
    var gzip: Gzip?
    /// False once a write failed (the peer went away); later writes are skipped.
    private(set) var alive = true

    /// Prepares to write to `fd`, turning on TCP_NODELAY when `faults` splits writes.
    init(fd: Int32, faults: Faults) {
        self.fd = fd
        self.split = faults.split
        self.random = SplitMix64(seed: faults.seed)
        self.gzip = faults.gzip ? Gzip() : nil
        if split != .none {
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// Writes a complete response with a `Content-Length` body.
    mutating func respond(status: Int, contentType: String = "application/json; charset=utf-8", body: String) {
        let bytes = gzip == nil ? Array(body.utf8) : Gzip.member(Array(body.utf8))
        write(
            head: status, headers: ["Content-Type: \(contentType)", "Content-Length: \(bytes.count)"] + encodingHeader)
        emit(bytes)
        flush()
    }

    /// Starts a chunked `text/event-stream` response.
    mutating func startStream() {
        write(
            head: 200,
            headers: ["Content-Type: text/event-stream", "Cache-Control: no-cache", "Transfer-Encoding: chunked"]
                + encodingHeader)
        chunked = true
        if gzip != nil { emit(Gzip.header) }
    }

    /// Writes part of a streamed body.
    mutating func stream(_ text: String) {
        if var compressing = gzip {
            emit(compressing.blocks(Array(text.utf8)))
            gzip = compressing
        } else {
            emit(Array(text.utf8))
        }
    }

    private var encodingHeader: [String] {
        gzip == nil ? [] : ["Content-Encoding: gzip"]
    }

    /// Writes whatever a random split still holds back.
    mutating func flush() {
        if !pending.isEmpty {
            let rest = pending
            pending = []
            put(rest)
        }
    }

    /// Ends a chunked body properly.
    mutating func finishStream() {
        if let gzip { emit(gzip.end()) }
        flush()
        if chunked { raw(Array("0\r\n\r\n".utf8)) }
    }

    private mutating func write(head status: Int, headers: [String]) {
        var text = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for header in headers + ["Connection: close"] { text += header + "\r\n" }
        text += "\r\n"
        raw(Array(text.utf8))
    }

    private mutating func emit(_ bytes: [UInt8]) {
        switch split {
        case .none: put(bytes)
        case .every: for byte in bytes { put([byte]) }
        case .random:
            pending += bytes
            while true {
                let size = 1 + Int(random.next() % 64)
                guard pending.count >= size else { break }
                let piece = Array(pending.prefix(size))
                pending.removeFirst(size)
                put(piece)
            }
        }
    }

    /// Sends one write, wrapped as one HTTP chunk when the body is chunked.
    private mutating func put(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if chunked {
            raw(Array(String(bytes.count, radix: 16).utf8) + [13, 10] + bytes + [13, 10])
        } else {
            raw(bytes)
        }
    }

    private mutating func raw(_ bytes: [UInt8]) {
        guard alive else { return }
        alive = Self.sendAll(fd, bytes)
    }

    /// Sends every byte (without SIGPIPE); false when the peer is gone.
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        (try? Descriptor.writeAll(fd, bytes, suppressingSIGPIPE: true)) != nil
    }

    /// The reason phrase of a status line.
    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 411: "Length Required"
        case 413: "Payload Too Large"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Status \(status)"
        }
    }
}

/// A small seeded generator, so `split=random` cuts the same way on every run.
struct SplitMix64 {
    private var state: UInt64

    /// Starts the sequence at `seed`.
    init(seed: UInt64) {
        state = seed
    }

    /// The next pseudo-random number.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
