import Foundation
import Testing

@testable import LMStudio

/// The delta fast path gives exactly what `JSONDecoder` gives, and steps aside for anything unusual.
struct TextDeltaScannerTests {
    let decoder = ChatEventDecoder()

    @Test(arguments: [
        (#"{"type":"message.delta","content":"plain"}"#, ChatEvent.messageDelta("plain")),
        (#"{"content":"sorted keys","type":"reasoning.delta"}"#, .reasoningDelta("sorted keys")),
        (#" { "type" : "message.delta" ,\#n\#t"content" : "spaced" }\#r\#n"#, .messageDelta("spaced")),
        (
            #"{"type":"message.delta","content":"q\"b\\s\/n\nt\tr\rb\bf\f"}"#,
            .messageDelta("q\"b\\s/n\nt\tr\rb\u{8}f\u{C}")
        ),
        (#"{"type":"message.delta","content":"\u00e9\u65E5 \ud83d\udc69\u200d\ud83d\udcbb"}"#, .messageDelta("é日 👩‍💻")),
        (#"{"type":"message.delta","content":"raw héllo 日本 👩‍💻"}"#, .messageDelta("raw héllo 日本 👩‍💻")),
        (#"{"type":"message.delta","content":"\u0000nul"}"#, .messageDelta("\u{0}nul")),
        (#"{"type":"message.delta","content":""}"#, .messageDelta(""))
    ])
    func decodesDeltasLikeTheGeneralDecoder(data: String, expected: ChatEvent) throws {
        #expect(TextDeltaScanner.event(in: data) == expected)
        // The general decoder, not the scanner again: JSONDecoder on the same bytes must read the same text.
        let general = try JSONDecoder().decode(GeneralDelta.self, from: Data(data.utf8))
        let text: String
        switch expected {
        case .messageDelta(let content), .reasoningDelta(let content): text = content
        default:
            Issue.record("not a delta: \(expected)")
            return
        }
        #expect(general.content == text)
    }

    @Test(arguments: [
        #"{"type":"message.delta","content":"x","extra":1}"#,
        #"{"type":"message.start"}"#,
        #"{"type":"message.delta"}"#,
        #"{"typ\u0065":"message.delta","content":"escaped key"}"#,
        #"{"type":"message.delta","content":"lone \ud83d high"}"#,
        #"{"type":"message.delta","content":"lone \udc69 low"}"#,
        #"{"type":"message.delta","content":"bad \x escape"}"#,
        #"{"type":"message.delta","content":"cut"#,
        #"{"type":"message.delta","content":"x"} trailing"#,
        #"{"type":"message.delta","type":"message.delta","content":"x"}"#,
        "{\"type\":\"message.delta\",\"content\":\"raw\ttab\"}",
        #"{"type":"message.delta","content":7}"#
    ])
    func stepsAsideForAnythingUnusual(data: String) {
        #expect(TextDeltaScanner.event(in: data) == nil)
        let general = try? JSONDecoder().decode(GeneralDelta.self, from: Data(data.utf8))
        let expected = ChatEvent.messageDelta(general?.content ?? "")
        if general?.type == "message.delta" {
            #expect(decoder.decode(SSEEvent(data: data)) == expected, "the fallback decodes what JSONDecoder accepts")
        }
    }

    /// Delta events with escapes and surrogate pairs, parsed at every split point of the stream, give the same events.
    @Test func everySplitPointGivesTheSameEvents() throws {
        let stream = """
            event: message.delta
            data: {"type":"message.delta","content":"a\\"b\\\\c \\ud83d\\udc69\\u200d\\ud83d\\udcbb é"}

            data: {"content":"日本\\n","type":"reasoning.delta"}

            data: {"type":"message.delta","content":"x","extra":true}


            """
        let bytes = Array(stream.utf8)
        let expected: [ChatEvent] = [.messageDelta("a\"b\\c 👩‍💻 é"), .reasoningDelta("日本\n"), .messageDelta("x")]
        for split in 0...bytes.count {
            var parser = SSEParser()
            let events = try (parser.feed(bytes[..<split]) + parser.feed(bytes[split...])).compactMap(decoder.decode)
            #expect(events == expected, "split at \(split)")
        }
    }

    private struct GeneralDelta: Decodable {
        var type: String?
        var content: String?
    }
}
