import Foundation
import Testing

@testable import LMStudio

/// A large `chat.end` decodes its long texts straight from the bytes, with exactly the general decoder's result.
struct LiftedStringsTests {
    let decoder = ChatEventDecoder()

    /// A long text with every kind of JSON escape, surrogate pairs and raw multi-byte characters.
    static let longText = String(repeating: "line \"quoted\" \\ back/slash\ttab é日 👩‍💻 \u{1F600}\n", count: 2000)

    /// A `chat.end` whose message and reasoning texts are `answer` and `reasoning`, given as JSON string literals.
    static func chatEnd(answerJSON: String, reasoning: String = "why", responseId: String = "resp_1") throws -> [UInt8]
    {
        let reasoningJSON = String(decoding: try JSONEncoder().encode(reasoning), as: UTF8.self)
        return Array(
            ("{\"type\":\"chat.end\",\"result\":{\"model_instance_id\":\"acme/tiny-1b\",\"output\":["
                + "{\"type\":\"reasoning\",\"content\":\(reasoningJSON)},{\"type\":\"message\",\"content\":\(answerJSON)}],"
                + "\"response_id\":\"\(responseId)\"}}").utf8)
    }

    /// Like ``chatEnd(answerJSON:reasoning:responseId:)`` with `answer` encoded by `JSONEncoder`.
    static func chatEnd(answer: String, reasoning: String = "why", responseId: String = "resp_1") throws -> [UInt8] {
        try chatEnd(
            answerJSON: String(decoding: try JSONEncoder().encode(answer), as: UTF8.self), reasoning: reasoning,
            responseId: responseId)
    }

    @Test func longTextsWithEscapesAndSurrogatePairsDecodeExactly() throws {
        // JSONEncoder writes these characters raw; spell some as \u escapes (a surrogate pair included) too.
        let answerJSON =
            String(String(decoding: try JSONEncoder().encode(Self.longText), as: UTF8.self).dropLast())
            + #"\ud83d\ude00\u00e9\u65E5""#
        let bytes = try Self.chatEnd(answerJSON: answerJSON, reasoning: Self.longText + "more")
        #expect(LiftedStrings(payload: bytes) != nil, "the texts are lifted")
        let event = decoder.decode(RawSSEEvent(name: nil, data: bytes))
        let expected = ChatResult(
            modelInstanceId: "acme/tiny-1b",
            output: [
                .reasoning(OutputText(Self.longText + "more")), .message(OutputText(Self.longText + "\u{1F600}é日"))
            ],
            responseId: "resp_1")
        #expect(event == .chatEnd(expected))
    }

    @Test(arguments: ["\\u0001" + "0", "\\u0001" + "1", "\\u0001"])
    func aPlaceholderLookingStringInTheInputIsNotConfused(responseId: String) throws {
        let bytes = try Self.chatEnd(answer: Self.longText, responseId: responseId)
        #expect(LiftedStrings(payload: bytes) == nil, "no lifting when a placeholder could occur")
        let expectedId = responseId.replacingOccurrences(of: "\\u0001", with: "\u{1}")
        #expect(
            decoder.decode(RawSSEEvent(name: nil, data: bytes))
                == .chatEnd(
                    ChatResult(
                        modelInstanceId: "acme/tiny-1b",
                        output: [.reasoning("why"), .message(OutputText(Self.longText))], responseId: expectedId)))
    }

    @Test func invalidUTF8InALongTextBecomesReplacementCharactersAsBefore() throws {
        var bytes = try Self.chatEnd(answer: Self.longText + "END")
        let end = bytes.firstRange(of: Array("END".utf8))!
        bytes.replaceSubrange(end, with: [0xFF, 0xC3])
        let event = decoder.decode(RawSSEEvent(name: nil, data: bytes))
        #expect(
            event
                == .chatEnd(
                    ChatResult(
                        modelInstanceId: "acme/tiny-1b",
                        output: [.reasoning("why"), .message(OutputText(Self.longText + "\u{FFFD}\u{FFFD}"))],
                        responseId: "resp_1")))
    }

    @Test func aLoneSurrogateOrALongTextOutsideTheReplyFallsBackToTheGeneralDecoder() throws {
        let lone = try Self.chatEnd(answer: Self.longText + "LONE").replacing(
            Array("LONE".utf8), with: Array(#"\ud83d"#.utf8))
        #expect(LiftedStrings(payload: lone) == nil)
        // JSONDecoder refuses the lone surrogate: the event is unreadable, as a short one would be.
        guard case .unreadable? = decoder.decode(RawSSEEvent(name: nil, data: lone)) else {
            Issue.record("a chat.end with a lone surrogate must read as unreadable")
            return
        }

        let call = ToolCall(
            tool: "read", arguments: .object(["path": .string("a")]), output: Self.longText, providerInfo: nil)
        let result = ChatResult(output: [.toolCall(call), .message("short")])
        let json = String(decoding: try JSONEncoder().encode(result), as: UTF8.self)
        let event = decoder.decode(RawSSEEvent(name: nil, data: Array(#"{"type":"chat.end","result":\#(json)}"#.utf8)))
        #expect(event == .chatEnd(result), "a long tool output, not restored from a placeholder, is decoded in full")
    }

    /// A large `chat.end` parsed at many split points (all around its escapes) gives the same event.
    @Test func splitPointsGiveTheSameEvent() throws {
        let payload = try Self.chatEnd(answer: Self.longText)
        let stream = Array("event: chat.end\ndata: ".utf8) + payload + Array("\n\n".utf8)
        let expected = ChatResult(
            modelInstanceId: "acme/tiny-1b", output: [.reasoning("why"), .message(OutputText(Self.longText))],
            responseId: "resp_1")
        let splits =
            Array(0..<200) + Array(stride(from: 200, to: stream.count, by: 4093))
            + Array(stream.count - 200...stream.count)
        for split in splits {
            var parser = SSEParser()
            let events = try (parser.feedRaw(stream[..<split]) + parser.feedRaw(stream[split...])).compactMap(
                decoder.decode)
            #expect(events == [.chatEnd(expected)], "split at \(split)")
        }
    }
}
