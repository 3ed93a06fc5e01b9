import Chat
import EditorRPC
import LMStudio
import Testing

@Suite struct ChatEventTrackerTests {
    private func text(_ event: (type: String, fields: [String: JSONValue])) -> String? {
        if case .string(let text)? = event.fields["text"] { text } else { nil }
    }

    @Test func textEventsCarryExactlyTheAppendedText() {
        var tracker = ChatEventTracker()
        let long = String(repeating: "0123456789", count: 1000) + "日本👩‍💻"
        let reasoning = tracker.events(for: .reasoningAppended(long))
        #expect(reasoning.map(\.type) == ["reasoning.delta"])
        #expect(text(reasoning[0]) == long, "no preview cut, no skipped count")
        #expect(reasoning[0].fields["skipped"] == nil)
        let answer = tracker.events(for: .answerAppended("Grüße 🙂"))
        #expect(answer.map(\.type) == ["message.delta"])
        #expect(text(answer[0]) == "Grüße 🙂")
    }

    @Test func rewrittenTextIsSentWhole() {
        var tracker = ChatEventTracker()
        let events =
            tracker.events(for: .answerReplaced("Revised: the whole answer."))
            + tracker.events(for: .reasoningReplaced("Why."))
        #expect(events.map(\.type) == ["message.replace", "reasoning.replace"])
        #expect(events.map(text) == ["Revised: the whole answer.", "Why."])
    }

    @Test func theEnginesReasoningTimeIsSentWhenReasoningEnds() {
        var tracker = ChatEventTracker()
        let events = tracker.events(for: .reasoningEnded(seconds: 12.4))
        #expect(events.map(\.type) == ["reasoning.end"])
        #expect(events.first?.fields["seconds"] == .number(12.4), "the label an editor shows: Thought for 12.4 s")
    }

    @Test func stageProgressCarriesTheInstanceAndOtherStagesAreSilent() {
        var tracker = ChatEventTracker()
        let events = [
            ReplyState.Stage.loadingModel(instanceId: "acme/tiny-1b:2", progress: 0.5), .processingPrompt(progress: 1),
            .reasoning, .answering, .ended
        ]
        .flatMap { tracker.events(for: .stageChanged($0)) }
        #expect(events.map(\.type) == ["model_load.progress", "prompt_processing.progress"])
        #expect(events[0].fields["modelInstanceId"] == .string("acme/tiny-1b:2"))
    }

    @Test func toolCallsStartThenChangeThenSucceedOrFail() {
        var tracker = ChatEventTracker()
        var call = ToolCallState(name: "search_docs")
        let start = tracker.events(for: .toolCallChanged(index: 0, call))
        call.arguments = .object(["query": .string("sse")])
        let arguments = tracker.events(for: .toolCallChanged(index: 0, call))
        call.status = .succeeded
        call.output = "found"
        let success = tracker.events(for: .toolCallChanged(index: 0, call))
        // A call whose start and failure were merged into one update still starts first.
        let failed = tracker.events(
            for: .toolCallChanged(index: 1, ToolCallState(name: "open_browser", status: .failed(reason: "no browser"))))
        #expect(start.map(\.type) == ["tool_call.start"])
        #expect(arguments.map(\.type) == ["tool_call.arguments"])
        #expect(arguments[0].fields["arguments"] == .object(["query": .string("sse")]))
        #expect(success.map(\.type) == ["tool_call.success"])
        #expect(success[0].fields["output"] == .string("found"))
        #expect(success[0].fields["status"] == .string("succeeded"))
        #expect(failed.map(\.type) == ["tool_call.start", "tool_call.failure"])
        #expect(failed[1].fields["reason"] == .string("no browser"))
        #expect(failed[1].fields["index"] == .number(1))
    }

    @Test func errorsAreClassified() {
        var tracker = ChatEventTracker()
        let events = tracker.events(for: .error(APIErrorPayload(message: "boom")))
        #expect(events.map(\.type) == ["error"])
        #expect(events[0].fields["kind"] == .string("server_error"))
    }
}
