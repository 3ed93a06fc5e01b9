import EditorRPC
import TestSupport
import Testing

/// Seeded fuzzing of both framings: damaged input is reported, never loses the valid message after it, never traps.
@Suite struct FramingFuzzTests {
    static let seed: UInt64 = 0x11_5743_5232
    static let iterations = 1_500

    /// A compact JSON body with printable text, sometimes quoting header-like text.
    static func body(_ index: Int, _ random: inout SeededGenerator) -> String {
        let words = ["hi", "Content-Length: 12", "é✓🙂", "\\\"q\\\"", "{[", "\\\\", "\\r\\n\\r\\n"]
        let text = (0..<Int.random(in: 0...4, using: &random)).map { _ in words.randomElement(using: &random)! }.joined(
            separator: " ")
        return "{\"n\":\(index),\"t\":\"\(text)\"}"
    }

    /// Feeds `bytes` in random pieces and then ends the input.
    static func frames(_ bytes: [UInt8], framing: Framing, limit: Int, _ random: inout SeededGenerator) -> [Frame] {
        var parser = FrameParser(framing: framing, limit: limit)
        var frames: [Frame] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + Int.random(in: 1...32, using: &random))
            frames += parser.feed(bytes[start..<end])
            start = end
        }
        return frames + parser.finish()
    }

    @Test func damagedLSPHeadersNeverCostTheMessagesAfterThem() {
        var random = SeededGenerator(seed: Self.seed)
        for iteration in 0..<Self.iterations {
            let bodies = (0..<3).map { Self.body($0, &random) }
            var damaged = Framing.lsp.frame(bodies[0])
            switch Int.random(in: 0..<5, using: &random) {
            case 0:
                damaged = Array("Content-Length: \(Int.random(in: 0...400, using: &random))\r\n\r\n\(bodies[0])".utf8)
            case 1:
                damaged = Array(
                    "Content-Length: \(UInt64.random(in: 0...UInt64.max, using: &random))9\r\n\r\n\(bodies[0])".utf8)
            case 2: damaged[Int.random(in: 0..<16, using: &random)] = UInt8.random(in: 0...255, using: &random)
            case 3:
                damaged = Array("Content-Type: x\r\nContent-Length: -\(bodies[0].utf8.count)\r\n\r\n\(bodies[0])".utf8)
            default: damaged = Array(damaged.prefix(Int.random(in: 0..<damaged.count, using: &random)))
            }
            let bytes = damaged + Framing.lsp.frame(bodies[1]) + Framing.lsp.frame(bodies[2])
            let frames = Self.frames(bytes, framing: .lsp, limit: 256, &random)
            #expect(
                Array(frames.suffix(2)) == [.message(Array(bodies[1].utf8)), .message(Array(bodies[2].utf8))],
                "iteration \(iteration): \(String(decoding: bytes, as: UTF8.self))")
        }
    }

    @Test func garbageLinesNeverCostTheLinesAfterThem() {
        var random = SeededGenerator(seed: Self.seed ^ 0xFF)
        for iteration in 0..<Self.iterations {
            let garbage = (0..<Int.random(in: 0...300, using: &random)).map { _ in
                var byte = UInt8.random(in: 0...255, using: &random)
                if byte == UInt8(ascii: "\n") { byte = 0 }
                return byte
            }
            let bodies = (0..<2).map { Self.body($0, &random) }
            let bytes = garbage + Array("\n\(bodies[0])\r\n\(bodies[1])".utf8)
            let frames = Self.frames(bytes, framing: .jsonLines, limit: 128, &random)
            #expect(
                Array(frames.suffix(2)) == [.message(Array(bodies[0].utf8)), .message(Array(bodies[1].utf8))],
                "iteration \(iteration)")
        }
    }
}
