#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Asking the terminal itself for its background (OSC 11), for the many terminals that set no `COLORFGBG` (xterm,
/// VTE, kitty …): a light window then gets colours that read on white.
extension TerminalBackground {
    /// The background `COLORFGBG` names, or nil when it is unset or unreadable (then the terminal may be asked).
    public init?(readingColorFgBg value: String?) {
        guard let value, let number = value.split(separator: ";").last.flatMap({ Int($0) }), (0...255).contains(number) else {
            return nil
        }
        self.init(colorFgBg: value)
    }

    /// Asks the terminal on `input`/`output` for its background colour: an OSC 11 query, then a primary device
    /// attributes request (DA1) that every terminal answers, so a terminal that ignores OSC 11 costs no wait; one
    /// that answers neither is given up on after `timeoutMilliseconds`. Returns the background (nil when not
    /// answered) and whatever else was read meanwhile (keys typed), for the line editor.
    public static func query(input: Int32, output: Int32, timeoutMilliseconds: Int32 = 300) -> (background: TerminalBackground?, typed: [UInt8]) {
        var saved = termios()
        guard isatty(input) == 1, isatty(output) == 1, tcgetattr(input, &saved) == 0 else { return (nil, []) }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { $0[Int(VMIN)] = 0; $0[Int(VTIME)] = 0 }
        tcsetattr(input, TCSANOW, &raw)
        defer { tcsetattr(input, TCSANOW, &saved) }
        let request = Array("\u{1B}]11;?\u{1B}\\\u{1B}[c".utf8)
        guard request.withUnsafeBytes({ write(output, $0.baseAddress, $0.count) }) == request.count else { return (nil, []) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 256)
        var clock = timespec()
        clock_gettime(CLOCK_MONOTONIC, &clock)
        let deadline = Int64(clock.tv_sec) * 1000 + Int64(clock.tv_nsec) / 1_000_000 + Int64(timeoutMilliseconds)
        while bytes.count < 4096 {
            let reply = BackgroundReply(bytes)
            if reply.isComplete { return (reply.background, reply.other) }
            clock_gettime(CLOCK_MONOTONIC, &clock)
            let left = deadline - (Int64(clock.tv_sec) * 1000 + Int64(clock.tv_nsec) / 1_000_000)
            guard left > 0 else { break }
            var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(left))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { break }
            let count = read(input, &chunk, chunk.count)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        let reply = BackgroundReply(bytes)
        return (reply.background, reply.other)
    }
}

/// What a terminal sent back to `TerminalBackground.query`: its OSC 11 colour report, its DA1 answer, and other bytes.
struct BackgroundReply: Equatable {
    /// The background the colour report names (light when its luminance is over one half).
    var background: TerminalBackground?
    /// Whether the DA1 answer, which ends the terminal's replies, has arrived.
    var isComplete = false
    /// The bytes that belong to neither reply.
    var other: [UInt8] = []

    /// Reads `bytes`: `ESC ] 11 ; rgb:RRRR/GGGG/BBBB` ended by BEL or `ESC \`, and `ESC [ ? … c`.
    init(_ bytes: [UInt8]) {
        var index = 0
        while index < bytes.count {
            if let (end, colour) = Self.colourReport(in: bytes, at: index) {
                background = colour
                index = end
            } else if let end = Self.attributesAnswer(in: bytes, at: index) {
                isComplete = true
                index = end
            } else {
                other.append(bytes[index])
                index += 1
            }
        }
    }

    private static func colourReport(in bytes: [UInt8], at start: Int) -> (Int, TerminalBackground?)? {
        let prefix = Array("\u{1B}]11;".utf8)
        guard bytes.count >= start + prefix.count, Array(bytes[start..<start + prefix.count]) == prefix else { return nil }
        var end = start + prefix.count
        while end < bytes.count, bytes[end] != 7, bytes[end] != 0x1B { end += 1 }
        guard end < bytes.count else { return nil }
        let body = String(decoding: bytes[(start + prefix.count)..<end], as: UTF8.self)
        let after = bytes[end] == 7 ? end + 1 : min(end + 2, bytes.count)
        return (after, background(ofColour: body))
    }

    private static func attributesAnswer(in bytes: [UInt8], at start: Int) -> Int? {
        guard bytes.count >= start + 3, bytes[start] == 0x1B, bytes[start + 1] == UInt8(ascii: "["), bytes[start + 2] == UInt8(ascii: "?") else {
            return nil
        }
        var end = start + 3
        while end < bytes.count, bytes[end] == UInt8(ascii: ";") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end]) { end += 1 }
        guard end < bytes.count, bytes[end] == UInt8(ascii: "c") else { return nil }
        return end + 1
    }

    /// Light or dark for `rgb:R/G/B` (or `rgba:R/G/B/A`), each of one to four hex digits.
    static func background(ofColour text: String) -> TerminalBackground? {
        guard let colon = text.firstIndex(of: ":"), ["rgb", "rgba"].contains(text[..<colon]) else { return nil }
        let parts = text[text.index(after: colon)...].split(separator: "/").prefix(3)
        let values: [Double] = parts.compactMap { part in
            guard (1...4).contains(part.count), let value = Int(part, radix: 16) else { return nil }
            return Double(value) / Double((1 << (4 * part.count)) - 1)
        }
        guard values.count == 3 else { return nil }
        let luminance = 0.2126 * values[0] + 0.7152 * values[1] + 0.0722 * values[2]
        return luminance > 0.5 ? .light : .dark
    }
}
