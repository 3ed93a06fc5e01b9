import Chat
import Foundation
import TestSupport
import Testing

@testable import LMStudio

/// A long `chat.end` is confirmed against the streamed text while it arrives, so it is never held whole beside the
/// reply; whatever it says (the same text, more of it, a rewrite early or late, a long text elsewhere, garbage), the
/// reply comes out exactly as reading the whole event would make it, however the stream is cut into chunks.
@Suite struct FinalEventConfirmationTests {
    /// Every kind of JSON escape, surrogate pairs and raw multi-byte characters.
    static let unit = "line \"quoted\" \\ back/slash\ttab é日 👩‍💻 \u{1F600}\n"
    /// About 290 KB: several checkpoints of the digests.
    static let streamed = String(repeating: unit, count: 6000)

    static func json(_ text: String) -> String {
        String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
    }

    /// `text` as a JSON literal with some characters spelled as `\u` escapes (a surrogate pair among them), as
    /// another server's encoder might write them.
    static func escapedJSON(_ text: String) -> String {
        json(text).replacingOccurrences(of: "é", with: #"\u00e9"#).replacingOccurrences(
            of: "\u{1F600}", with: #"\ud83d\ude00"#)
    }

    /// A stream that answers `answer` in deltas (reasoning `reasoning` first, if any), then ends with a `chat.end`
    /// whose output is `outputJSON`; `named` gives every event an `event:` line.
    static func stream(answer: String, reasoning: String = "", outputJSON: String, named: Bool = true) -> [UInt8] {
        var text = ""
        func event(_ name: String, _ payload: String) {
            if named { text += "event: \(name)\n" }
            text += "data: \(payload)\n\n"
        }
        func deltas(_ type: String, _ whole: String) {
            var rest = Substring(whole)
            while !rest.isEmpty {
                event(type, #"{"type":"\#(type)","content":\#(json(String(rest.prefix(997))))}"#)
                rest = rest.dropFirst(997)
            }
        }
        event("chat.start", #"{"type":"chat.start","model_instance_id":"acme/tiny-1b"}"#)
        if !reasoning.isEmpty {
            event("reasoning.start", #"{"type":"reasoning.start"}"#)
            deltas("reasoning.delta", reasoning)
            event("reasoning.end", #"{"type":"reasoning.end"}"#)
        }
        event("message.start", #"{"type":"message.start"}"#)
        deltas("message.delta", answer)
        event("message.end", #"{"type":"message.end"}"#)
        event(
            "chat.end",
            #"{"type":"chat.end","result":{"model_instance_id":"acme/tiny-1b","output":\#(outputJSON),"response_id":"resp_9"}}"#
        )
        return Array(text.utf8)
    }

    static func message(_ json: String) -> String { #"{"type":"message","content":\#(json)}"# }

    /// `bytes` read by the chat event reader in chunks of `chunk` bytes, and the events applied to an accumulator.
    static func reply(_ bytes: [UInt8], chunk: Int) async throws -> (state: ReplyState, end: ChatResult?) {
        let body = AsyncThrowingStream<[UInt8], any Error> { continuation in
            var start = 0
            while start < bytes.count {
                continuation.yield(Array(bytes[start..<min(bytes.count, start + chunk)]))
                start += chunk
            }
            continuation.finish()
        }
        let reader = ChatEventReader(body: body, server: "http://127.0.0.1:1")
        var accumulator = ReplyAccumulator()
        var end: ChatResult?
        while let event = try await reader.next() {
            if case .chatEnd(let result) = event { end = result }
            accumulator.apply(event)
        }
        return (accumulator.state, end)
    }

    static func message(of result: ChatResult?) -> OutputText? {
        result?.output.lazy.compactMap { if case .message(let text) = $0 { text } else { nil } }.first
    }

    /// `bytes` read the way a parser without digests reads them: each event whole, then decoded.
    static func replyReadWhole(_ bytes: [UInt8]) throws -> ReplyState {
        var parser = SSEParser()
        var accumulator = ReplyAccumulator()
        let decoder = ChatEventDecoder()
        for event in try parser.feed(bytes) {
            if let chatEvent = decoder.decode(event) { accumulator.apply(chatEvent) }
        }
        return accumulator.state
    }

    /// Seeded cases: a final event that repeats, extends, rewrites (anywhere, by insertion or deletion) or replaces
    /// the streamed texts, in escapes of either spelling, with or without a long tool output, cut into random chunks,
    /// gives exactly the reply that reading each event whole gives.
    @Test func randomFinalEventsGiveWhatReadingThemWholeGives() async throws {
        var generator = SeededGenerator(seed: 0xC0_4F1E)
        let units = ["plain words ", "\"q\" ", "\\ ", "tab\t", "é", "日本", "👩‍💻", "\u{1F600}", "\n", "\u{7}"]
        func text(_ length: Int) -> String {
            var text = ""
            while text.utf8.count < length { text += units.randomElement(using: &generator)! }
            return text
        }
        for iteration in 0..<25 {
            let answer = text(Int.random(in: 60_000...260_000, using: &generator))
            let reasoning =
                Bool.random(using: &generator) ? text(Int.random(in: 1_000...140_000, using: &generator)) : ""
            var final = answer
            switch iteration % 5 {
            case 0: break
            case 1: final += text(Int.random(in: 1...70_000, using: &generator))
            case 2:
                let at = final.index(final.startIndex, offsetBy: Int.random(in: 0...final.count, using: &generator))
                final.insert(contentsOf: text(Int.random(in: 1...40, using: &generator)), at: at)
            case 3:
                let start = Int.random(in: 0..<final.count, using: &generator)
                let from = final.index(final.startIndex, offsetBy: start)
                final.removeSubrange(
                    from..<final.index(
                        from, offsetBy: min(final.count - start, Int.random(in: 1...5_000, using: &generator))))
            default: final = text(answer.utf8.count)
            }
            let plainSpelling = Bool.random(using: &generator)
            func spell(_ text: String) -> String { plainSpelling ? Self.json(text) : Self.escapedJSON(text) }
            var items: [String] = []
            if !reasoning.isEmpty { items.append(#"{"type":"reasoning","content":\#(spell(reasoning))}"#) }
            if Bool.random(using: &generator) {
                items.append(
                    #"{"type":"tool_call","tool":"read","arguments":{},"output":\#(spell(text(Int.random(in: 60_000...90_000, using: &generator))))}"#
                )
            }
            items.append(Self.message(spell(final)))
            let bytes = Self.stream(
                answer: answer, reasoning: reasoning, outputJSON: "[\(items.joined(separator: ","))]",
                named: Bool.random(using: &generator))
            let chunk = [3, 17, 255, 4096, 16384, 70_001].randomElement(using: &generator)!
            let expected = try Self.replyReadWhole(bytes)
            let (state, _) = try await Self.reply(bytes, chunk: chunk)
            #expect(state.answer == expected.answer && state.answer == final, "iteration \(iteration)")
            #expect(state.reasoning == expected.reasoning, "iteration \(iteration)")
            #expect(state.isRewritten == expected.isRewritten, "iteration \(iteration)")
            #expect(state.unreadableEventCount == expected.unreadableEventCount, "iteration \(iteration)")
            #expect(state.toolCalls == expected.toolCalls, "iteration \(iteration)")
        }
    }

    /// The reply from `bytes` read in pieces as a chat is, expected to equal reading each event whole.
    static func expectSameAsReadingWhole(
        _ bytes: [UInt8], chunk: Int = 16384, _ comment: Comment? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let expected = try replyReadWhole(bytes)
        let (state, _) = try await reply(bytes, chunk: chunk)
        #expect(state.answer == expected.answer, comment, sourceLocation: sourceLocation)
        #expect(state.reasoning == expected.reasoning, comment, sourceLocation: sourceLocation)
        #expect(state.isRewritten == expected.isRewritten, comment, sourceLocation: sourceLocation)
        #expect(state.isComplete == expected.isComplete, comment, sourceLocation: sourceLocation)
        #expect(state.responseId == expected.responseId, comment, sourceLocation: sourceLocation)
        #expect(state.unreadableEventCount == expected.unreadableEventCount, comment, sourceLocation: sourceLocation)
        #expect(state.toolCalls == expected.toolCalls, comment, sourceLocation: sourceLocation)
    }

    /// Server-sent events, each `data:` line given whole.
    static func sse(_ payloads: [String]) -> [UInt8] {
        Array(payloads.map { "data: \($0)\n\n" }.joined().utf8)
    }

    static func delta(_ type: String, _ text: String) -> String {
        #"{"type":"\#(type)","content":\#(json(text))}"#
    }

    static func chatEnd(_ outputJSON: String) -> String {
        #"{"type":"chat.end","result":{"output":\#(outputJSON),"response_id":"resp_9"}}"#
    }

    /// A long final text that only trims the whitespace at the streamed text's end, or adds some, is confirmed while it
    /// arrives (not held whole) and keeps what streamed, byte for byte: no rewrite.
    @Test(arguments: [(" \n\n", ""), ("", "\n "), ("\n", "  ")])
    func aLongFinalTextDifferingOnlyByWhitespaceAtItsEndIsConfirmedAndKeepsWhatStreamed(
        streamedEnd: String, finalEnd: String
    ) async throws {
        let answer = Self.streamed + streamedEnd
        let bytes = Self.stream(
            answer: answer, outputJSON: "[\(Self.message(Self.escapedJSON(Self.streamed + finalEnd)))]")
        let (state, end) = try await Self.reply(bytes, chunk: 16384)
        #expect(Self.message(of: end)?.needsStreamedText == true, "confirmed against the streamed text, not held whole")
        #expect(state.answer == answer && !state.isRewritten && state.isComplete && state.unreadableEventCount == 0)
    }

    /// The piece that ends a line can be the one that starts lifting it: whatever the line's length, the final event
    /// is dispatched, not taken for the end of an event.
    @Test func aFinalEventOfAnyLengthNearTheLiftingThresholdArrives() async throws {
        for length in stride(from: 62_000, through: 150_000, by: 1_999) {
            let answer = String(repeating: "a", count: length)
            let (state, _) = try await Self.reply(
                Self.stream(answer: answer, outputJSON: "[\(Self.message(Self.json(answer)))]"), chunk: 16384)
            #expect(state.isComplete && state.responseId == "resp_9", "a line of \(length) bytes")
            #expect(state.answer == answer && state.unreadableEventCount == 0, "a line of \(length) bytes")
        }
    }

    @Test func streamsReadAsWholeEventsWouldBe() async throws {
        let a = String(repeating: "first part é\n", count: 7_000)
        let b = String(repeating: "second part 日\n", count: 7_000)
        // Bytes that are not UTF-8 beside a confirmed answer.
        try await Self.expectSameAsReadingWhole(
            Self.sse([Self.delta("message.delta", a)])
                + Array(#"data: {"type":"chat.end","result":{"model_instance_id":"m"#.utf8) + [0xFF]
                + Array(#"","output":[\#(Self.message(Self.json(a)))]}}"#.utf8) + Array("\n\n".utf8),
            "invalid UTF-8 in the event")
        // An item of a type llmster does not know, whose content repeats the answer.
        try await Self.expectSameAsReadingWhole(
            Self.sse([
                Self.delta("message.delta", a),
                Self.chatEnd(#"[{"type":"summary","content":\#(Self.json(a))},\#(Self.message(Self.json(a)))]"#)
            ]),
            "an item of an unknown type")
        // Answer text while a tool call runs, then more after its result: one part.
        try await Self.expectSameAsReadingWhole(
            Self.sse([
                #"{"type":"tool_call.start","tool":"read"}"#, Self.delta("message.delta", a),
                #"{"type":"tool_call.success","tool":"read","arguments":{},"output":"ok"}"#,
                Self.delta("message.delta", b),
                Self.chatEnd(
                    #"[{"type":"tool_call","tool":"read","arguments":{},"output":"ok"},\#(Self.message(Self.json(a + b)))]"#
                )
            ]),
            "deltas around a tool call's result")
        // An empty answer delta between two runs of reasoning.
        try await Self.expectSameAsReadingWhole(
            Self.sse([
                Self.delta("reasoning.delta", a), Self.delta("message.delta", ""), Self.delta("reasoning.delta", b),
                Self.chatEnd(#"[{"type":"reasoning","content":\#(Self.json(b))}]"#)
            ]),
            "an empty delta between reasoning")
        // The streamed answer given back as reasoning.
        try await Self.expectSameAsReadingWhole(
            Self.sse([
                Self.delta("message.delta", a), Self.chatEnd(#"[{"type":"reasoning","content":\#(Self.json(a))}]"#)
            ]),
            "the answer given back as reasoning")
    }

    @Test(arguments: [3, 1000, 16384, 100_003])
    func theSameTextIsConfirmedNotHeld(chunk: Int) async throws {
        for (outputJSON, named) in [(Self.json(Self.streamed), true), (Self.escapedJSON(Self.streamed), false)] {
            let (state, end) = try await Self.reply(
                Self.stream(answer: Self.streamed, outputJSON: "[\(Self.message(outputJSON))]", named: named),
                chunk: chunk)
            #expect(
                Self.message(of: end)?.needsStreamedText == true,
                "the final text was confirmed while it arrived, not kept")
            #expect(state.answer == Self.streamed)
            #expect(!state.isRewritten && state.isComplete && state.unreadableEventCount == 0)
        }
    }

    @Test(arguments: [7, 16384])
    func moreTextIsAppendedAfterTheConfirmedPart(chunk: Int) async throws {
        let final = Self.streamed + "and one more line ✓"
        let (state, end) = try await Self.reply(
            Self.stream(answer: Self.streamed, outputJSON: "[\(Self.message(Self.escapedJSON(final)))]"), chunk: chunk)
        #expect(Self.message(of: end)?.needsStreamedText == true)
        #expect(state.answer == final)
        #expect(!state.isRewritten && state.unreadableEventCount == 0)
    }

    @Test(arguments: [5, 16384])
    func aRewriteLateOrEarlyGivesTheFinalTextExactly(chunk: Int) async throws {
        var late = Self.streamed
        late.insert(contentsOf: "REWRITTEN", at: late.index(late.startIndex, offsetBy: 200_000))
        let early = "REWRITTEN" + Self.streamed
        for final in [late, early] {
            let (state, end) = try await Self.reply(
                Self.stream(answer: Self.streamed, outputJSON: "[\(Self.message(Self.escapedJSON(final)))]"),
                chunk: chunk)
            #expect(state.answer == final)
            #expect(state.isRewritten && state.unreadableEventCount == 0)
            #expect(
                Self.message(of: end)?.needsStreamedText == (final == late),
                "a late rewrite keeps only the part after the confirmed start")
        }
    }

    @Test func longReasoningAndAnswerAreBothConfirmed() async throws {
        let reasoning = String(repeating: "thinking about \"it\" 日本\n", count: 5000)
        let output =
            #"[{"type":"reasoning","content":\#(Self.json(reasoning))},\#(Self.message(Self.json(Self.streamed)))]"#
        let (state, end) = try await Self.reply(
            Self.stream(answer: Self.streamed, reasoning: reasoning, outputJSON: output), chunk: 4096)
        #expect(
            end?.output.allSatisfy {
                if case .reasoning(let text) = $0 {
                    text.needsStreamedText
                } else if case .message(let text) = $0 {
                    text.needsStreamedText
                } else {
                    true
                }
            } == true)
        #expect(state.answer == Self.streamed && state.reasoning == reasoning)
        #expect(!state.isRewritten && state.unreadableEventCount == 0)
    }

    @Test func aLongTextOutsideTheReplyIsReadWhole() async throws {
        let output = String(repeating: "tool output \"line\" ü\n", count: 8000)
        let call = #"{"type":"tool_call","tool":"read","arguments":{"path":"a"},"output":\#(Self.json(output))}"#
        let (state, end) = try await Self.reply(
            Self.stream(answer: "short answer", outputJSON: "[\(call),\(Self.message(Self.json("short answer")))]"),
            chunk: 1000)
        #expect(state.unreadableEventCount == 0)
        #expect(state.toolCalls.first?.output == output)
        #expect(end != nil && state.answer == "short answer")
    }

    /// Only reply texts are compared with what streamed: a tool output (or arguments) repeating the answer is kept
    /// as it came and read whole, the answer beside it confirmed.
    @Test func aLongToolOutputRepeatingTheAnswerIsReadWhole() async throws {
        let call =
            #"{"type":"tool_call","tool":"write","arguments":{"content":\#(Self.json(Self.streamed))},"output":\#(Self.json(Self.streamed))}"#
        let (state, end) = try await Self.reply(
            Self.stream(answer: Self.streamed, outputJSON: "[\(call),\(Self.message(Self.json(Self.streamed)))]"),
            chunk: 1000)
        #expect(state.unreadableEventCount == 0)
        #expect(state.toolCalls.first?.output == Self.streamed)
        #expect(state.toolCalls.first?.arguments == .object(["content": .string(Self.streamed)]))
        #expect(Self.message(of: end)?.needsStreamedText == true)
        #expect(state.answer == Self.streamed)
    }

    @Test func anInvalidEscapeInALongTextMakesTheEventUnreadable() async throws {
        for badJSON in [
            String(Self.json(Self.streamed).dropLast()) + #"\x""#,
            "\"" + #"\ud83d"# + String(Self.json(Self.streamed).dropFirst())
        ] {
            let (state, _) = try await Self.reply(
                Self.stream(answer: Self.streamed, outputJSON: "[\(Self.message(badJSON))]"), chunk: 1000)
            #expect(state.unreadableEventCount == 1)
            #expect(state.answer == Self.streamed, "what streamed is kept")
        }
    }
}
