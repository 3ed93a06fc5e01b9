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
            .toolCallSuccess(tool: "search_docs", arguments: .object(["query": .string("sse")]), output: "found", provider: nil),
            .messageStart, .messageDelta("Every streamed word"),
        ] { accumulator.apply(event) }
        return accumulator
    }

    static let search = ToolCall(tool: "search_docs", arguments: .object(["query": .string("sse")]), output: "found")

    @Test func aFinalEventThatOnlyExtendsWhatStreamedKeepsIt() {
        var accumulator = Self.streamed()
        let result = ChatResult(output: [.reasoning("Think it over."), .toolCall(Self.search), .message("Every streamed word, and more.")])
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
}
