import Glibc

extension TerminalBackground {
    /// The background `COLORFGBG` names, or nil when it is unset or unreadable (then the terminal may be asked).
    public init?(readingColorFgBg value: String?) {
        guard let value, let number = value.split(separator: ";").last.flatMap({ Int($0) }), (0...255).contains(number)
        else {
            return nil
        }
        self.init(colorFgBg: value)
    }
}

/// What the terminal said about itself when asked at start-up.
public struct TerminalAnswers: Sendable, Equatable {
    /// Its background colour, light or dark; nil when not asked or not answered.
    public var background: TerminalBackground?
    /// How it counts the columns of emoji sequences, as it answered or as measured; nil when not asked or unknown.
    public var widthModel: WidthModel?
    /// Whatever else was read meanwhile (keys typed), for the line editor.
    public var typed: [UInt8] = []
}

/// Asking the terminal itself what no environment variable says reliably: its background (OSC 11; xterm, VTE,
/// kitty … set no `COLORFGBG`) and how wide it draws emoji sequences (a terminal's version decides more than its
/// name: kitty 0.26 draws a ZWJ family 8 columns wide, later ones 2).
public enum TerminalQuery {
    /// The clusters whose drawn width tells the width models apart: a ZWJ family, a flag, a heart with VS16.
    static let probes = [
        "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}", "\u{1F1EF}\u{1F1F5}",
        "\u{2764}\u{FE0F}"
    ]

    /// Asks the terminal on `input`/`output`, in one round trip: its background (OSC 11) when `background` is set;
    /// when `widths` is set, whether it clusters graphemes (DECRQM for mode 2027) and, for a terminal that does not
    /// say, the columns each of `probes` advances the cursor (drawn at the line's start, reported by CPR, erased
    /// at once, all inside synchronized output). A primary device attributes request (DA1), which every terminal
    /// answers, ends the round trip, so a terminal that ignores the rest costs no wait; one that answers nothing is
    /// given up on after `timeoutMilliseconds`.
    public static func ask(
        input: Int32, output: Int32, background: Bool, widths: Bool,
        timeoutMilliseconds: Int32 = 300
    ) -> TerminalAnswers {
        var saved = termios()
        guard background || widths, isatty(input) == 1, isatty(output) == 1, tcgetattr(input, &saved) == 0 else {
            return TerminalAnswers()
        }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) {
            $0[Int(VMIN)] = 0
            $0[Int(VTIME)] = 0
        }
        tcsetattr(input, TCSANOW, &raw)
        defer { tcsetattr(input, TCSANOW, &saved) }
        var request = background ? "\u{1B}]11;?\u{1B}\\" : ""
        if widths {
            request += "\u{1B}[?2027$p\u{1B}[?2026h"
            for probe in probes { request += "\r" + probe + "\u{1B}[6n" }
            request += "\r\u{1B}[K\u{1B}[?2026l"
        }
        request += "\u{1B}[c"
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ write(output, $0.baseAddress, $0.count) }) == bytes.count else {
            return TerminalAnswers()
        }
        return answers(to: readReplies(input, timeoutMilliseconds: timeoutMilliseconds))
    }

    /// The terminal's replies read from `input` until its DA1 answer or the deadline.
    private static func readReplies(_ input: Int32, timeoutMilliseconds: Int32) -> TerminalReply {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 256)
        var clock = timespec()
        clock_gettime(CLOCK_MONOTONIC, &clock)
        let deadline = Int64(clock.tv_sec) * 1000 + Int64(clock.tv_nsec) / 1_000_000 + Int64(timeoutMilliseconds)
        while bytes.count < 4096 {
            let reply = TerminalReply(bytes)
            if reply.isComplete { return reply }
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
        return TerminalReply(bytes)
    }

    /// What `reply` says: mode 2027 set (or permanently set) means grapheme clusters; otherwise the model whose
    /// widths match more of the probes' measured advances wins, and a tie or no measure says nothing.
    static func answers(to reply: TerminalReply) -> TerminalAnswers {
        var answers = TerminalAnswers(background: reply.background, typed: reply.other)
        if reply.graphemeMode == 1 || reply.graphemeMode == 3 {
            answers.widthModel = .grapheme
        } else if reply.cursorColumns.count == probes.count {
            let advances = reply.cursorColumns.map { $0 - 1 }
            func matches(_ model: WidthModel) -> Int {
                zip(probes, advances).filter { DisplayWidth.of($0.0, model: model) == $0.1 }.count
            }
            let (grapheme, codepoint) = (matches(.grapheme), matches(.codepoint))
            answers.widthModel = grapheme > codepoint ? .grapheme : codepoint > grapheme ? .codepoint : nil
        }
        return answers
    }
}

/// What a terminal sent back to `TerminalQuery.ask`: its OSC 11 colour report, its DECRQM answer for mode 2027,
/// its cursor position reports, its DA1 answer, and other bytes.
struct TerminalReply: Equatable {
    /// The background the colour report names (light when its luminance is over one half).
    var background: TerminalBackground?
    /// The state the terminal reported for mode 2027 (grapheme clusters): 0 unknown to it, 1 set, 2 reset,
    /// 3 permanently set, 4 permanently reset; nil when it did not answer.
    var graphemeMode: Int?
    /// The columns (1-based) of the cursor position reports, in order.
    var cursorColumns: [Int] = []
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
            } else if let (end, state) = Self.modeReport(in: bytes, at: index) {
                graphemeMode = state
                index = end
            } else if let (end, column) = Self.positionReport(in: bytes, at: index) {
                cursorColumns.append(column)
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
        guard bytes.count >= start + prefix.count, Array(bytes[start..<start + prefix.count]) == prefix else {
            return nil
        }
        var end = start + prefix.count
        while end < bytes.count, bytes[end] != 7, bytes[end] != 0x1B { end += 1 }
        guard end < bytes.count else { return nil }
        let body = String(decoding: bytes[(start + prefix.count)..<end], as: UTF8.self)
        let after = bytes[end] == 7 ? end + 1 : min(end + 2, bytes.count)
        return (after, background(ofColour: body))
    }

    /// `ESC [ ? 2027 ; Ps $ y`: the end and Ps.
    private static func modeReport(in bytes: [UInt8], at start: Int) -> (Int, Int)? {
        let prefix = Array("\u{1B}[?2027;".utf8)
        guard bytes.count >= start + prefix.count, Array(bytes[start..<start + prefix.count]) == prefix else {
            return nil
        }
        let (end, value) = number(in: bytes, at: start + prefix.count)
        guard let value, end + 1 < bytes.count, bytes[end] == UInt8(ascii: "$"), bytes[end + 1] == UInt8(ascii: "y")
        else {
            return nil
        }
        return (end + 2, value)
    }

    /// `ESC [ row ; column R`: the end and the column.
    private static func positionReport(in bytes: [UInt8], at start: Int) -> (Int, Int)? {
        guard bytes.count >= start + 2, bytes[start] == 0x1B, bytes[start + 1] == UInt8(ascii: "[") else { return nil }
        let (rowEnd, row) = number(in: bytes, at: start + 2)
        guard row != nil, rowEnd < bytes.count, bytes[rowEnd] == UInt8(ascii: ";") else { return nil }
        let (end, column) = number(in: bytes, at: rowEnd + 1)
        guard let column, end < bytes.count, bytes[end] == UInt8(ascii: "R") else { return nil }
        return (end + 1, column)
    }

    /// The decimal number of up to six digits at `start`, and where it ends; nil for no digit.
    private static func number(in bytes: [UInt8], at start: Int) -> (Int, Int?) {
        var end = start
        var value = 0
        while end < bytes.count, end - start < 6, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end]) {
            value = value * 10 + Int(bytes[end] - UInt8(ascii: "0"))
            end += 1
        }
        return (end, end > start ? value : nil)
    }

    private static func attributesAnswer(in bytes: [UInt8], at start: Int) -> Int? {
        guard bytes.count >= start + 3, bytes[start] == 0x1B, bytes[start + 1] == UInt8(ascii: "["),
            bytes[start + 2] == UInt8(ascii: "?")
        else {
            return nil
        }
        var end = start + 3
        while end < bytes.count,
            bytes[end] == UInt8(ascii: ";") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end])
        { end += 1 }
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
