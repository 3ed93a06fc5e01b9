import TestSupport
import Testing

@testable import LMStudio

/// Seeded fuzzing of the SSE parser and the chat event decoder: a recorded stream truncated, bit-flipped, spliced with
/// hostile bytes and fed in random chunks never traps; the parser either yields events or throws its own error.
@Suite struct StreamFuzzTests {
    private static let iterations = 400

    private static let hostile: [[UInt8]] = [
        [0], [0xFF, 0xFE], [0xED, 0xA0, 0x80], Array(#"\ud800"#.utf8), Array("data: {\"type\":".utf8),
        Array(String(repeating: "[", count: 1_200).utf8),
        Array(#"{"type":"chat.end","result":{"stats":{"input_tokens":9223372036854775807}}}"#.utf8),
        Array(#"{"type":"prompt_processing.progress","progress":1e309}"#.utf8), Array("\r\r\n\n".utf8),
        Array(#"{"type":"message.delta","content":"\u0000\u009b\u202e"}"#.utf8), Array("event: \n:\n".utf8)
    ]

    @Test func damagedStreamsNeverTrapTheParserOrDecoder() throws {
        let original = Array(recordedChatStream.utf8)
        let decoder = ChatEventDecoder()
        var generator = SeededGenerator(seed: 0x55e_f022)
        for iteration in 0..<Self.iterations {
            var bytes = original
            switch iteration % 3 {
            case 0: bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator)))
            case 1:
                for _ in 0..<Int.random(in: 1...8, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] ^=
                        1 << UInt8.random(in: 0...7, using: &generator)
                }
            default:
                let at = Int.random(in: 0...bytes.count, using: &generator)
                bytes.insert(contentsOf: Self.hostile.randomElement(using: &generator)!, at: at)
            }
            var offsets: [Int] = []
            for _ in 0..<Int.random(in: 0...6, using: &generator) {
                offsets.append(Int.random(in: 0...bytes.count, using: &generator))
            }
            var parser = SSEParser(maxEventBytes: 4_096)
            var events: [SSEEvent] = []
            do {
                for chunk in split(bytes, at: offsets.sorted()) { events += try parser.feed(chunk) }
                events += parser.finish()
            } catch {
                #expect(error is SSEError, "iteration \(iteration): \(error)")
            }
            for event in events { _ = decoder.decode(event) }
        }
    }
}
