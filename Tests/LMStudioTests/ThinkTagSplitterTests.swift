import Testing

@testable import LMStudio

/// `<think>…</think>` at the start of an answer becomes reasoning, wherever the deltas cut the tags.
@Suite struct ThinkTagSplitterTests {
    /// Reasoning and answer text of `events`.
    static func texts(_ events: [ChatEvent]) -> (reasoning: String, answer: String) {
        var reasoning = ""
        var answer = ""
        for event in events {
            if case .reasoningDelta(let text) = event { reasoning += text }
            if case .messageDelta(let text) = event { answer += text }
        }
        return (reasoning, answer)
    }

    static func run(_ pieces: [String], start: Bool = true) -> [ChatEvent] {
        var splitter = ThinkTagSplitter()
        var events: [ChatEvent] = []
        if start { events += splitter.split(.messageStart) }
        for piece in pieces { events += splitter.split(.messageDelta(piece)) }
        events += splitter.split(.messageEnd)
        return events + splitter.finish()
    }

    @Test func taggedReasoningIsSeparatedAtEveryCut() {
        let text = "\n<think>Count: 2 + 2.</think>\n\nIt is **4**."
        for cut in 0...text.count {
            for second in cut...text.count {
                let pieces = [
                    String(text.prefix(cut)), String(text.dropFirst(cut).prefix(second - cut)),
                    String(text.dropFirst(second))
                ]
                let (reasoning, answer) = Self.texts(Self.run(pieces))
                #expect(reasoning == "Count: 2 + 2." && answer == "It is **4**.", "cut at \(cut), \(second)")
            }
        }
    }

    @Test func anAnswerWithoutTheTagIsPassedOnAsItCame() {
        let events = Self.run(["\n", "Use `<think>` tags ", "like </think> this."])
        #expect(Self.texts(events) == ("", "\nUse `<think>` tags like </think> this."))
        #expect(events.first == .messageStart)
    }

    /// A part that ends while its head is undecided hands on what it held before its end, in order.
    @Test func aPartEndingUndecidedKeepsItsOrder() {
        #expect(Self.run(["<th"]) == [.messageStart, .messageDelta("<th"), .messageEnd])
    }

    @Test func aTagThatNeverClosesIsReasoning() {
        #expect(Self.texts(Self.run(["<thi", "nk>still thinking </th"])) == ("still thinking </th", ""))
    }

    @Test func theFinalResultIsSplitTheSameWay() {
        let result = ChatResult(output: [.message("<think>why</think>\n\nbecause"), .message("plain <think>x</think>")])
        let split = ThinkTagSplitter.splitting(result)
        #expect(split.output == [.reasoning("why"), .message("because"), .message("plain <think>x</think>")])
    }
}
