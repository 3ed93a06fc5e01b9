import Chat
import LMStudio
import Testing

/// Whether a final event keeps what streamed, which decides whether the streamed version is saved before it is applied.
@Suite struct StreamedVersionTests {
    static func streamed() -> ReplyAccumulator {
        var accumulator = ReplyAccumulator()
        for event: ChatEvent in [
            .reasoningStart, .reasoningDelta("Think it over."), .reasoningEnd,
            .toolCallStart(tool: "search_docs", provider: nil),
            .toolCallSuccess(
                tool: "search_docs", arguments: .object(["query": .string("sse")]), output: "found", provider: nil),
            .messageStart, .messageDelta("Every streamed word")
        ] { accumulator.apply(event) }
        return accumulator
    }

    static let search = ToolCall(tool: "search_docs", arguments: .object(["query": .string("sse")]), output: "found")

    @Test func aFinalEventThatOnlyExtendsWhatStreamedKeepsIt() {
        var accumulator = Self.streamed()
        let result = ChatResult(output: [
            .reasoning("Think it over."), .toolCall(Self.search), .message("Every streamed word, and more.")
        ])
        #expect(accumulator.keepsStreamed(result))
        #expect(accumulator.keepsStreamed(ChatResult(output: [])), "an empty output keeps the streamed text")
        accumulator.apply(.chatEnd(result))
        #expect(!accumulator.state.isRewritten)
        #expect(accumulator.state.answer == "Every streamed word, and more.")
    }

    @Test(arguments: ["answer", "reasoning", "tools"])
    func aFinalEventDroppingAnyPartDoesNotKeepItAndIsARewrite(dropped: String) {
        var accumulator = Self.streamed()
        var output: [OutputItem] = []
        if dropped != "reasoning" { output.append(.reasoning("Think it over.")) }
        if dropped != "tools" { output.append(.toolCall(Self.search)) }
        output.append(.message(dropped == "answer" ? "" : "Every streamed word"))
        let result = ChatResult(output: output)
        #expect(!accumulator.keepsStreamed(result))
        accumulator.apply(.chatEnd(result))
        #expect(accumulator.state.isRewritten, "the reply records that its final event replaced what streamed")
    }

    /// Whitespace at the ends of each part, and Unicode normalisation, are no rewrite: what streamed stays, part for part.
    @Test func aFinalEventDifferingOnlyByWhitespaceAndNormalisationKeepsWhatStreamed() {
        var accumulator = Self.streamed()
        accumulator.apply(.messageDelta(" caf\u{E9}\n"))
        accumulator.apply(.messageStart)
        accumulator.apply(.messageDelta("Second part. "))
        let streamed = accumulator.state
        let result = ChatResult(output: [
            .reasoning("\nThink it over. "), .toolCall(Self.search),
            .message("Every streamed word cafe\u{301}"), .message("Second part.")
        ])
        #expect(accumulator.keepsStreamed(result))
        accumulator.apply(.chatEnd(result))
        #expect(!accumulator.state.isRewritten)
        #expect(Array(accumulator.state.answer.utf8) == Array(streamed.answer.utf8), "the streamed text, byte for byte")
        #expect(accumulator.state.reasoning == streamed.reasoning)
        #expect(accumulator.state.isComplete)
    }
}
