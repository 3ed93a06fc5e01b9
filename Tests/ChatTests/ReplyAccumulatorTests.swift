import Chat
import Foundation
import LMStudio
import Testing

@Suite struct ReplyAccumulatorTests {
    static let plugin = ProviderInfo(type: "plugin", pluginId: "mcp/docs", serverLabel: nil)

    /// reasoning → tool → message → tool (failed) → message, then chat.end.
    static let interleaved: [ChatEvent] = [
        .chatStart(modelInstanceId: "acme/thinker-8b"),
        .modelLoadStart(modelInstanceId: "acme/thinker-8b"), .modelLoadProgress(0.5),
        .modelLoadEnd(loadTimeSeconds: 2.5),
        .promptProcessingStart, .promptProcessingProgress(0.8), .promptProcessingEnd,
        .reasoningStart, .reasoningDelta("Think "), .reasoningDelta("hard."), .reasoningEnd,
        .toolCallStart(tool: "search_docs", provider: plugin),
        .toolCallArguments(tool: "search_docs", arguments: .object(["query": .string("sse")]), provider: plugin),
        .toolCallSuccess(
            tool: "search_docs", arguments: .object(["query": .string("sse")]), output: "found", provider: plugin),
        .messageStart, .messageDelta("Part "), .messageDelta("one."), .messageEnd,
        .toolCallStart(tool: "open_browser", provider: nil),
        .toolCallFailure(
            reason: "Cannot find tool open_browser",
            metadata: ToolCallFailureMetadata(
                type: "invalid_name", toolName: "open_browser", arguments: nil, providerInfo: nil)),
        .messageStart, .messageDelta("Part two."), .messageEnd
    ]

    static let result = ChatResult(
        modelInstanceId: "acme/thinker-8b",
        output: [
            .reasoning("Think hard."),
            .toolCall(
                ToolCall(
                    tool: "search_docs", arguments: .object(["query": .string("sse")]), output: "found",
                    providerInfo: plugin)),
            .message("Part one."),
            .invalidToolCall(
                InvalidToolCall(
                    reason: "Cannot find tool open_browser",
                    metadata: ToolCallFailureMetadata(
                        type: "invalid_name", toolName: "open_browser", arguments: nil, providerInfo: nil))),
            .message("Part two.")
        ],
        stats: ChatStats(
            inputTokens: 12, totalOutputTokens: 40, reasoningOutputTokens: 4, tokensPerSecond: 50,
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
        guard case .reasoning = state.items[0], case .toolCall = state.items[1],
            case .message("Part one.") = state.items[2],
            case .toolCall = state.items[3], case .message("Part two.") = state.items[4]
        else {
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
        #expect(stages.contains(.loadingModel(instanceId: "acme/thinker-8b", progress: 0.5)))
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
        differing.append(
            .chatEnd(
                ChatResult(modelInstanceId: nil, output: [.message("The saved text.")], stats: nil, responseId: nil)))
        #expect(accumulate(differing).answer == "The saved text.")
    }

    @Test func errorThenChatEndKeepsTheError() {
        let error = APIErrorPayload(type: "internal_error", message: "boom", code: nil, param: nil)
        let state = accumulate([
            .chatStart(modelInstanceId: "m"), .messageStart, .messageDelta("Half"), .error(error),
            .chatEnd(ChatResult(modelInstanceId: "m", output: [], stats: nil, responseId: nil))
        ])
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
        let expectedReasoning = events.compactMap { if case .reasoningDelta(let text) = $0 { text } else { nil } }
            .joined()
        #expect(state.reasoning == expectedReasoning)
    }

    @Test func reasoningCharacterCountCountsCharacters() {
        let state = accumulate([.reasoningStart, .reasoningDelta("日本"), .reasoningDelta("👩‍💻!")])
        #expect(state.reasoningCharacterCount == 4)
    }

    /// The answer and reasoning rebuilt from the updates alone, as a face that keeps no other state would.
    static func replay(_ updates: [ReplyUpdate]) -> (answer: String, reasoning: String) {
        var answer = ""
        var reasoning = ""
        for update in updates {
            switch update {
            case .answerAppended(let text): answer += text
            case .answerReplaced(let text): answer = text
            case .reasoningAppended(let text): reasoning += text
            case .reasoningReplaced(let text): reasoning = text
            default: break
            }
        }
        return (answer, reasoning)
    }

    @Test func updatesAddUpToTheStateAndSayWhatChanged() {
        var accumulator = ReplyAccumulator()
        var updates: [ReplyUpdate] = []
        for event in Self.interleaved + [.chatEnd(Self.result)] { updates += accumulator.apply(event) }
        let replayed = Self.replay(updates)
        #expect(replayed.answer == accumulator.state.answer)
        #expect(replayed.reasoning == accumulator.state.reasoning)
        #expect(
            !updates.contains { if case .answerReplaced = $0 { true } else { false } },
            "an agreeing chat.end replaces nothing")
        #expect(!accumulator.state.isRewritten)
        let calls = updates.compactMap {
            if case .toolCallChanged(let index, let call) = $0 { "\(index) \(call.status)" } else { nil }
        }
        #expect(calls.first == "0 running")
        #expect(calls.contains("0 succeeded"))
        #expect(calls.last == "1 failed(reason: \"Cannot find tool open_browser\")")
        #expect(updates.contains(.stageChanged(.processingPrompt(progress: 0.8))))
    }

    @Test func chatEndThatRewritesTheAnswerReplacesItAndSaysSo() {
        var accumulator = ReplyAccumulator()
        var updates: [ReplyUpdate] = []
        for event: ChatEvent in [.messageStart, .messageDelta("Streamed "), .messageDelta("draft")] {
            updates += accumulator.apply(event)
        }
        let end = accumulator.apply(
            .chatEnd(ChatResult(modelInstanceId: nil, output: [.message("Final text.")], stats: nil, responseId: nil)))
        #expect(end.contains(.answerReplaced("Final text.")))
        #expect(accumulator.state.answer == "Final text.")
        #expect(accumulator.state.isRewritten)
        #expect(Self.replay(updates + end).answer == "Final text.")
    }

    @Test func chatEndThatOnlyExtendsTheStreamAppendsTheRest() {
        var accumulator = ReplyAccumulator()
        for event: ChatEvent in [.messageStart, .messageDelta("Grü")] { accumulator.apply(event) }
        let end = accumulator.apply(
            .chatEnd(ChatResult(modelInstanceId: nil, output: [.message("Grüße 🙂")], stats: nil, responseId: nil)))
        #expect(end.contains(.answerAppended("ße 🙂")))
        #expect(!accumulator.state.isRewritten)
    }

    @Test func nothingAfterChatEndIsApplied() {
        var accumulator = ReplyAccumulator()
        for event: ChatEvent in [
            .messageStart, .messageDelta("Done."),
            .chatEnd(ChatResult(modelInstanceId: nil, output: [.message("Done.")], stats: nil, responseId: nil))
        ] {
            accumulator.apply(event)
        }
        #expect(accumulator.apply(.messageDelta(" Late text.")).isEmpty)
        #expect(accumulator.apply(.reasoningDelta("late")).isEmpty)
        #expect(accumulator.state.answer == "Done.")
    }

    @Test func reasoningTimesComeFromTheEventsNotTheDisplay() {
        var accumulator = ReplyAccumulator()
        accumulator.apply(.promptProcessingEnd, at: .seconds(1))
        accumulator.apply(.reasoningStart, at: .seconds(2))
        accumulator.apply(.reasoningDelta("hmm"), at: .milliseconds(2500))
        let closing = accumulator.apply(.reasoningEnd, at: .milliseconds(14_400))
        accumulator.apply(.messageDelta("Answer"), at: .seconds(20))
        #expect(accumulator.state.reasoningStartedAt == .seconds(2))
        #expect(accumulator.state.reasoningEndedAt == .milliseconds(14_400))
        guard case .reasoningEnded(let seconds)? = closing.first else {
            Issue.record("reasoning.end did not close the span: \(closing)")
            return
        }
        #expect(abs(seconds - 12.4) < 1e-9, "Thought for 12.4 s, exactly the span between the events")
        #expect(abs((accumulator.state.reasoningSeconds ?? 0) - 12.4) < 1e-9)
    }

    @Test func reasoningStillOpenWhenTheAnswerStartsEndsThere() {
        var accumulator = ReplyAccumulator()
        accumulator.apply(.reasoningDelta("hmm"), at: .seconds(1))
        let updates = accumulator.apply(.messageDelta("Answer"), at: .seconds(4))
        #expect(updates.first == .reasoningEnded(seconds: 3), "the answer's first delta closes the reasoning")
        #expect(accumulator.close(at: .seconds(9)).isEmpty, "a closed span is not reopened by the end")
    }
}

/// A large `chat.end` (its texts kept encoded by the decoder) is compared with the streamed text in place.
@Suite struct LargeChatEndTests {
    static let longText = String(repeating: "line \"quoted\" \\ tab\t é日 👩‍💻 \u{1F600}\n", count: 3000)

    /// The `chat.end` event carrying `messages` as its message items, decoded as the client decodes it.
    static func chatEnd(_ messages: [String]) throws -> ChatEvent {
        let items = try messages.map {
            #"{"type":"message","content":"# + String(decoding: try JSONEncoder().encode($0), as: UTF8.self) + "}"
        }
        let data =
            #"{"type":"chat.end","result":{"output":["# + items.joined(separator: ",") + #"],"response_id":"r"}}"#
        return try #require(ChatEventDecoder().decode(SSEEvent(name: "chat.end", data: data)))
    }

    func streamed(_ text: String, deltaLength: Int = 997) -> (ReplyAccumulator, [ReplyUpdate]) {
        var accumulator = ReplyAccumulator()
        var updates = accumulator.apply(.messageStart)
        var rest = Substring(text)
        while !rest.isEmpty {
            updates += accumulator.apply(.messageDelta(String(rest.prefix(deltaLength))))
            rest = rest.dropFirst(deltaLength)
        }
        return (accumulator, updates)
    }

    @Test func aChatEndRepeatingTheStreamConfirmsIt() throws {
        var (accumulator, updates) = streamed(Self.longText)
        updates += accumulator.apply(try Self.chatEnd([Self.longText]))
        #expect(accumulator.state.answer == Self.longText && !accumulator.state.isRewritten)
        #expect(!updates.contains { if case .answerReplaced = $0 { true } else { false } })
        #expect(accumulator.state.items == [.message(Self.longText)])
    }

    @Test func aChatEndExtendingAStreamCutShortAppendsOnlyTheRest() throws {
        let cut = Self.longText.prefix(Self.longText.count / 2)
        var (accumulator, updates) = streamed(String(cut))
        updates += accumulator.apply(try Self.chatEnd([Self.longText, "second part"]))
        #expect(accumulator.state.answer == Self.longText + "\n\nsecond part" && !accumulator.state.isRewritten)
        #expect(
            updates.last { if case .answerAppended = $0 { true } else { false } }
                == .answerAppended(String(Self.longText.dropFirst(cut.count)) + "\n\nsecond part"))
        #expect(accumulator.state.items == [.message(Self.longText), .message("second part")])
    }

    @Test func aChatEndDifferingInTheMiddleRewritesTheAnswer() throws {
        var (accumulator, _) = streamed(Self.longText)
        var final = Self.longText
        final.insert("X", at: final.index(final.startIndex, offsetBy: final.count / 2))
        let updates = accumulator.apply(try Self.chatEnd([final]))
        #expect(accumulator.state.answer == final && accumulator.state.isRewritten)
        #expect(updates.contains(.answerReplaced(final)))
    }
}
