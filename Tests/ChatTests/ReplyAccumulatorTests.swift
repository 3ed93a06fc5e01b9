import Chat
import LMStudio
import Foundation
import Testing

@Suite struct ReplyAccumulatorTests {
    static let plugin = ProviderInfo(type: "plugin", pluginId: "mcp/docs", serverLabel: nil)

    /// reasoning → tool → message → tool (failed) → message, then chat.end.
    static let interleaved: [ChatEvent] = [
        .chatStart(modelInstanceId: "acme/thinker-8b"),
        .modelLoadStart(modelInstanceId: "acme/thinker-8b"), .modelLoadProgress(0.5), .modelLoadEnd(loadTimeSeconds: 2.5),
        .promptProcessingStart, .promptProcessingProgress(0.8), .promptProcessingEnd,
        .reasoningStart, .reasoningDelta("Think "), .reasoningDelta("hard."), .reasoningEnd,
        .toolCallStart(tool: "search_docs", provider: plugin),
        .toolCallArguments(tool: "search_docs", arguments: .object(["query": .string("sse")]), provider: plugin),
        .toolCallSuccess(tool: "search_docs", arguments: .object(["query": .string("sse")]), output: "found", provider: plugin),
        .messageStart, .messageDelta("Part "), .messageDelta("one."), .messageEnd,
        .toolCallStart(tool: "open_browser", provider: nil),
        .toolCallFailure(reason: "Cannot find tool open_browser",
                         metadata: ToolCallFailureMetadata(type: "invalid_name", toolName: "open_browser", arguments: nil, providerInfo: nil)),
        .messageStart, .messageDelta("Part two."), .messageEnd,
    ]

    static let result = ChatResult(
        modelInstanceId: "acme/thinker-8b",
        output: [
            .reasoning("Think hard."),
            .toolCall(ToolCall(tool: "search_docs", arguments: .object(["query": .string("sse")]), output: "found", providerInfo: plugin)),
            .message("Part one."),
            .invalidToolCall(InvalidToolCall(reason: "Cannot find tool open_browser",
                                             metadata: ToolCallFailureMetadata(type: "invalid_name", toolName: "open_browser", arguments: nil, providerInfo: nil))),
            .message("Part two."),
        ],
        stats: ChatStats(inputTokens: 12, totalOutputTokens: 40, reasoningOutputTokens: 4, tokensPerSecond: 50,
                         timeToFirstTokenSeconds: 0.2, modelLoadTimeSeconds: 2.5),
        responseId: "resp_abc")

    func accumulate(_ events: [ChatEvent]) -> ReplyState {
        var accumulator = ReplyAccumulator()
        for event in events { accumulator.apply(event) }
        return accumulator.state
    }

    @Test func keepsReasoningAnswerAndToolsApartInServerOrder() {
        let state = accumulate(Self.interleaved)
        #expect(state.reasoning == "Think hard.")
        #expect(state.answer == "Part one.\n\nPart two.")
        #expect(state.toolCalls.map(\.name) == ["search_docs", "open_browser"])
        #expect(state.toolCalls[0].status == .succeeded)
        #expect(state.toolCalls[0].output == "found")
        #expect(state.toolCalls[0].arguments == .object(["query": .string("sse")]))
        #expect(state.toolCalls[0].provider == Self.plugin)
        #expect(state.toolCalls[1].status == .failed(reason: "Cannot find tool open_browser"))
        #expect(state.items.count == 5)
        guard case .reasoning = state.items[0], case .toolCall = state.items[1], case .message("Part one.") = state.items[2],
              case .toolCall = state.items[3], case .message("Part two.") = state.items[4] else {
            Issue.record("items out of order: \(state.items)")
            return
        }
        #expect(!state.isComplete)
        #expect(state.modelLoadSeconds == 2.5)
    }

    @Test func stagesFollowTheStream() {
        var accumulator = ReplyAccumulator()
        var stages: [ReplyState.Stage] = []
        for event in Self.interleaved {
            accumulator.apply(event)
            stages.append(accumulator.state.stage)
        }
        #expect(stages.contains(.loadingModel(progress: 0.5)))
        #expect(stages.contains(.processingPrompt(progress: 0.8)))
        #expect(stages.contains(.reasoning))
        #expect(stages.contains(.toolCall(name: "search_docs")))
        #expect(stages.last == .answering)
    }

    @Test func chatEndIsAuthoritativeAndCompletes() {
        var events = Self.interleaved
        events.append(.chatEnd(Self.result))
        let state = accumulate(events)
        #expect(state.isComplete)
        #expect(state.stage == .ended)
        #expect(state.responseId == "resp_abc")
        #expect(state.stats?.totalOutputTokens == 40)
        #expect(state.answer == "Part one.\n\nPart two.")

        var differing = Array(Self.interleaved.prefix(16))
        differing.append(.chatEnd(ChatResult(modelInstanceId: nil, output: [.message("The saved text.")], stats: nil, responseId: nil)))
        #expect(accumulate(differing).answer == "The saved text.")
    }

    @Test func errorThenChatEndKeepsTheError() {
        let error = APIErrorPayload(type: "internal_error", message: "boom", code: nil, param: nil)
        let state = accumulate([.chatStart(modelInstanceId: "m"), .messageStart, .messageDelta("Half"), .error(error),
                                .chatEnd(ChatResult(modelInstanceId: "m", output: [], stats: nil, responseId: nil))])
        #expect(state.errors == [error])
        #expect(state.isComplete)
        #expect(state.answer == "Half", "an empty result must not erase streamed text")
    }

    /// A stream cut at any event boundary leaves an incomplete reply holding everything received.
    @Test(arguments: 0...22)
    func streamCutAtEveryBoundaryIsIncompleteWithTheText(cut: Int) {
        let events = Array(Self.interleaved.prefix(cut))
        let state = accumulate(events)
        #expect(!state.isComplete)
        let expectedAnswer = events.compactMap { if case .messageDelta(let text) = $0 { text } else { nil } }
        let answerWithoutSeparators = state.answer.replacingOccurrences(of: "\n\n", with: "")
        #expect(answerWithoutSeparators == expectedAnswer.joined())
        let expectedReasoning = events.compactMap { if case .reasoningDelta(let text) = $0 { text } else { nil } }.joined()
        #expect(state.reasoning == expectedReasoning)
    }

    @Test func reasoningCharacterCountCountsCharacters() {
        let state = accumulate([.reasoningStart, .reasoningDelta("日本"), .reasoningDelta("👩‍💻!")])
        #expect(state.reasoningCharacterCount == 4)
    }
}
