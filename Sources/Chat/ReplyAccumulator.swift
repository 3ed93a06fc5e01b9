import LMStudio

/// Reduces a chat stream's events to a `ReplyState` and says exactly what each event changed.
///
/// Reasoning, answer text and tool activity are kept apart; a reply is complete only when `chat.end`
/// arrived, and then its `result` replaces what the deltas built (unless the result carries no output,
/// which must not erase text that streamed). Nothing that arrives after `chat.end` is applied.
public struct ReplyAccumulator: Sendable {
    public private(set) var state = ReplyState()
    private var updates: [ReplyUpdate] = []
    private var reasoningOpen = false

    /// Creates an accumulator for a new reply.
    public init() {}

    /// Applies one event that arrived at `time` (an instant of the engine's clock); returns what changed.
    @discardableResult
    public mutating func apply(_ event: ChatEvent, at time: Duration = .zero) -> [ReplyUpdate] {
        guard !state.isComplete else { return [] }
        updates = []
        switch event {
        case .chatStart(let instance):
            state.modelInstanceId = instance ?? state.modelInstanceId
        case .modelLoadStart(let instance):
            state.loadingModelInstanceId = instance
            setStage(.loadingModel(instanceId: instance, progress: 0))
        case .modelLoadProgress(let progress):
            setStage(.loadingModel(instanceId: state.loadingModelInstanceId, progress: clamp(progress)))
        case .modelLoadEnd(let seconds):
            state.modelLoadSeconds = seconds
            setStage(.waiting)
        case .promptProcessingStart:
            setStage(.processingPrompt(progress: 0))
        case .promptProcessingProgress(let progress):
            setStage(.processingPrompt(progress: clamp(progress)))
        case .promptProcessingEnd:
            setStage(.waiting)
        case .reasoningStart:
            beginReasoningPart(at: time)
        case .reasoningDelta(let text):
            if !lastPartIsReasoning { beginReasoningPart(at: time) }
            appendReasoning(text)
        case .reasoningEnd:
            closeReasoning(at: time)
            setStage(.waiting)
        case .toolCallStart(let tool, let provider):
            closeReasoning(at: time)
            appendCall(ToolCallState(name: tool, provider: provider))
            setStage(.toolCall(name: tool))
        case .toolCallArguments(let tool, let arguments, let provider):
            updateRunningCall(named: tool, orAppend: ToolCallState(name: tool, arguments: arguments, provider: provider)) {
                $0.arguments = arguments
                $0.provider = provider ?? $0.provider
            }
        case .toolCallSuccess(let tool, let arguments, let output, let provider):
            updateRunningCall(named: tool, orAppend: ToolCallState(name: tool, arguments: arguments, output: output,
                                                                  provider: provider, status: .succeeded)) {
                $0.arguments = arguments
                $0.output = output
                $0.provider = provider ?? $0.provider
                $0.status = .succeeded
            }
            setStage(.waiting)
        case .toolCallFailure(let reason, let metadata):
            let name = metadata?.toolName ?? state.toolCalls.first { $0.status == .running }?.name ?? "tool"
            updateRunningCall(named: name, orAppend: ToolCallState(name: name, arguments: metadata?.arguments,
                                                                  provider: metadata?.providerInfo,
                                                                  status: .failed(reason: reason))) {
                $0.arguments = metadata?.arguments ?? $0.arguments
                $0.provider = metadata?.providerInfo ?? $0.provider
                $0.status = .failed(reason: reason)
            }
            setStage(.waiting)
        case .messageStart:
            closeReasoning(at: time)
            beginMessagePart()
        case .messageDelta(let text):
            closeReasoning(at: time)
            if !lastPartIsMessage { beginMessagePart() }
            appendAnswer(text)
        case .messageEnd:
            break
        case .error(let payload):
            state.errors.append(payload)
            updates.append(.error(payload))
        case .chatEnd(let result):
            closeReasoning(at: time)
            adopt(result)
        }
        return updates
    }

    /// Closes a reasoning span still open when the stream stops at `time`; returns what changed.
    public mutating func close(at time: Duration) -> [ReplyUpdate] {
        updates = []
        closeReasoning(at: time)
        return updates
    }

    private var lastPartIsReasoning: Bool {
        if case .reasoning? = state.parts.last { true } else { false }
    }

    private var lastPartIsMessage: Bool {
        if case .message? = state.parts.last { true } else { false }
    }

    private mutating func setStage(_ stage: ReplyState.Stage) {
        guard stage != state.stage else { return }
        state.stage = stage
        updates.append(.stageChanged(stage))
    }

    private mutating func appendReasoning(_ text: String) {
        guard !text.isEmpty else { return }
        state.reasoning += text
        state.reasoningCharacterCount += text.count
        updates.append(.reasoningAppended(text))
    }

    private mutating func appendAnswer(_ text: String) {
        guard !text.isEmpty else { return }
        state.answer += text
        updates.append(.answerAppended(text))
    }

    private mutating func beginReasoningPart(at time: Duration) {
        if !state.reasoning.isEmpty { appendReasoning(ReplyState.partSeparator) }
        state.parts.append(.reasoning(start: state.reasoning.utf8.count))
        if state.reasoningStartedAt == nil { state.reasoningStartedAt = time }
        reasoningOpen = true
        setStage(.reasoning)
    }

    private mutating func closeReasoning(at time: Duration) {
        guard reasoningOpen else { return }
        reasoningOpen = false
        state.reasoningEndedAt = time
        updates.append(.reasoningEnded(seconds: state.reasoningSeconds ?? 0))
    }

    private mutating func beginMessagePart() {
        if !state.answer.isEmpty { appendAnswer(ReplyState.partSeparator) }
        state.parts.append(.message(start: state.answer.utf8.count))
        setStage(.answering)
    }

    private mutating func appendCall(_ call: ToolCallState) {
        state.parts.append(.toolCall(index: state.toolCalls.count))
        state.toolCalls.append(call)
        updates.append(.toolCallChanged(index: state.toolCalls.count - 1, call))
    }

    /// Tool call events carry no id: they are matched to the first running call of that name, in order.
    private mutating func updateRunningCall(named name: String, orAppend fallback: ToolCallState,
                                            _ update: (inout ToolCallState) -> Void) {
        if let index = state.toolCalls.firstIndex(where: { $0.status == .running && $0.name == name }) {
            update(&state.toolCalls[index])
            updates.append(.toolCallChanged(index: index, state.toolCalls[index]))
        } else {
            appendCall(fallback)
        }
    }

    /// Applies the authoritative `chat.end` result: text it only extends is appended, text it contradicts is replaced.
    private mutating func adopt(_ result: ChatResult) {
        state.isComplete = true
        setStage(.ended)
        state.modelInstanceId = result.modelInstanceId ?? state.modelInstanceId
        state.stats = result.stats ?? state.stats
        state.responseId = result.responseId
        guard result.output.contains(where: { if case .unknown = $0 { false } else { true } }) else { return }
        var rebuilt = ReplyAccumulator()
        for item in result.output {
            switch item {
            case .message(let text):
                rebuilt.beginMessagePart()
                rebuilt.state.answer += text
            case .reasoning(let text):
                rebuilt.beginReasoningPart(at: .zero)
                rebuilt.state.reasoning += text
                rebuilt.state.reasoningCharacterCount += text.count
            case .toolCall(let call):
                rebuilt.appendCall(ToolCallState(name: call.tool, arguments: call.arguments, output: call.output,
                                                 provider: call.providerInfo, status: .succeeded))
            case .invalidToolCall(let invalid):
                rebuilt.appendCall(ToolCallState(name: invalid.metadata?.toolName ?? "tool",
                                                 arguments: invalid.metadata?.arguments,
                                                 provider: invalid.metadata?.providerInfo,
                                                 status: .failed(reason: invalid.reason)))
            case .unknown:
                break
            }
        }
        let final = rebuilt.state
        if let rest = Self.extension(of: state.reasoning, to: final.reasoning) {
            if !rest.isEmpty { updates.append(.reasoningAppended(rest)) }
        } else {
            state.isRewritten = true
            updates.append(.reasoningReplaced(final.reasoning))
        }
        for (index, call) in final.toolCalls.enumerated() where index >= state.toolCalls.count || state.toolCalls[index] != call {
            updates.append(.toolCallChanged(index: index, call))
        }
        if let rest = Self.extension(of: state.answer, to: final.answer) {
            if !rest.isEmpty { updates.append(.answerAppended(rest)) }
        } else {
            state.isRewritten = true
            updates.append(.answerReplaced(final.answer))
        }
        state.reasoning = final.reasoning
        state.reasoningCharacterCount = final.reasoningCharacterCount
        state.answer = final.answer
        state.toolCalls = final.toolCalls
        state.parts = final.parts
    }

    /// The text `final` adds to `streamed` when it starts with it; nil when it does not.
    private static func `extension`(of streamed: String, to final: String) -> String? {
        let streamedBytes = streamed.utf8
        let finalBytes = final.utf8
        guard finalBytes.count >= streamedBytes.count, finalBytes.starts(with: streamedBytes) else { return nil }
        return String(decoding: finalBytes.dropFirst(streamedBytes.count), as: UTF8.self)
    }

    private func clamp(_ value: Double) -> Double { min(1, max(0, value)) }
}
