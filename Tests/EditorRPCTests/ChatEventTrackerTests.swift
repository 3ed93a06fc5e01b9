@testable import Chat
import EditorRPC
import LMStudio
import Testing

@Suite struct ChatEventTrackerTests {
    private func snapshot(_ sequence: Int, stage: ReplyState.Stage = .answering, answer: String = "", reasoning: String = "",
                          reasoningCount: Int? = nil, toolCalls: [ToolCallState] = [], errors: [APIErrorPayload] = []) -> DisplaySnapshot {
        DisplaySnapshot(sequence: sequence, ending: .streaming, stage: stage, answer: answer, reasoningPreview: reasoning,
                        reasoningCharacterCount: reasoningCount ?? reasoning.count, toolCalls: toolCalls, errors: errors,
                        stats: nil, modelInstanceId: nil, loadingModelInstanceId: nil, isComplete: false)
    }

    @Test func textDeltasAddUpToTheAnswerEvenAcrossMultibyteCharacters() {
        var tracker = ChatEventTracker()
        var deltas: [String] = []
        for answer in ["", "Grü", "Grüße ", "Grüße 🙂", "Grüße 🙂!"] {
            for event in tracker.events(for: snapshot(0, answer: answer)) where event.type == "message.delta" {
                deltas.append(event.fields["text"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? "")
            }
        }
        #expect(deltas == ["Grü", "ße ", "🙂", "!"])
    }

    @Test func stageProgressIsReportedOncePerChange() {
        var tracker = ChatEventTracker()
        let types = [ReplyState.Stage.loadingModel(progress: 0.5), .loadingModel(progress: 0.5), .processingPrompt(progress: 1), .answering]
            .flatMap { stage in tracker.events(for: snapshot(0, stage: stage)).map(\.type) }
        #expect(types == ["model_load.progress", "prompt_processing.progress"])
    }

    @Test func reasoningBeyondThePreviewReportsWhatWasSkipped() {
        var tracker = ChatEventTracker()
        _ = tracker.events(for: snapshot(0, reasoning: "abc"))
        let events = tracker.events(for: snapshot(1, reasoning: "xyz", reasoningCount: 10))
        #expect(events.count == 1)
        #expect(events.first?.fields["text"] == .string("xyz"))
        #expect(events.first?.fields["skipped"] == .number(4))
        let next = tracker.events(for: snapshot(2, reasoning: "xyz!", reasoningCount: 11))
        #expect(next.first?.fields["text"] == .string("!"))
    }

    @Test func toolCallsStartThenSucceedOrFail() {
        var tracker = ChatEventTracker()
        let running = ToolCallState(name: "search_docs")
        var done = running
        done.status = .succeeded
        done.output = "found"
        let failed = ToolCallState(name: "open_browser", status: .failed(reason: "no browser"))
        let first = tracker.events(for: snapshot(0, toolCalls: [running])).map(\.type)
        let second = tracker.events(for: snapshot(1, toolCalls: [done, failed])).map(\.type)
        let third = tracker.events(for: snapshot(2, toolCalls: [done, failed], errors: [APIErrorPayload(message: "boom")])).map(\.type)
        #expect(first == ["tool_call.start"])
        #expect(second == ["tool_call.success", "tool_call.start", "tool_call.failure"])
        #expect(third == ["error"])
    }
}
