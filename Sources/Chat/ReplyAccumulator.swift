import LMStudio

/// Reduces a chat stream's events to a `ReplyState` and says exactly what each event changed.
///
/// Reasoning, answer text and tool activity are kept apart; a reply is complete only when `chat.end`
/// arrived, and then its `result` replaces what the deltas built (unless the result carries no output,
/// which must not erase text that streamed). Nothing that arrives after `chat.end` is applied. Events that
/// could not be read are counted: what they carried is lost, so such a reply is never saved as complete.
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
        case .unreadable(let reason):
            state.unreadableEventCount += 1
            if state.firstUnreadableEvent == nil { state.firstUnreadableEvent = reason }
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
    ///
    /// The result's texts are compared with the streamed ones in place; only what they add is decoded, so a
    /// confirmed reply is not held twice.
    private mutating func adopt(_ result: ChatResult) {
        state.isComplete = true
        setStage(.ended)
        state.modelInstanceId = result.modelInstanceId ?? state.modelInstanceId
        state.stats = result.stats ?? state.stats
        state.responseId = result.responseId
        guard result.output.contains(where: { if case .unknown = $0 { false } else { true } }) else { return }
        var messages: [OutputText] = []
        var reasonings: [OutputText] = []
        var calls: [ToolCallState] = []
        for item in result.output {
            switch item {
            case .message(let text): messages.append(text)
            case .reasoning(let text): reasonings.append(text)
            case .toolCall(let call):
                calls.append(ToolCallState(name: call.tool, arguments: call.arguments, output: call.output,
                                           provider: call.providerInfo, status: .succeeded))
            case .invalidToolCall(let invalid):
                calls.append(ToolCallState(name: invalid.metadata?.toolName ?? "tool", arguments: invalid.metadata?.arguments,
                                           provider: invalid.metadata?.providerInfo, status: .failed(reason: invalid.reason)))
            case .unknown:
                break
            }
        }
        let reasoningStarts = reconcile(reasonings, reasoning: true)
        for (index, call) in calls.enumerated() where index >= state.toolCalls.count || state.toolCalls[index] != call {
            updates.append(.toolCallChanged(index: index, call))
        }
        state.toolCalls = calls
        let messageStarts = reconcile(messages, reasoning: false)
        var parts: [ReplyState.Part] = []
        var counts = (messages: 0, reasonings: 0, calls: 0)
        for item in result.output {
            switch item {
            case .message:
                parts.append(.message(start: messageStarts[counts.messages]))
                counts.messages += 1
            case .reasoning:
                parts.append(.reasoning(start: reasoningStarts[counts.reasonings]))
                counts.reasonings += 1
            case .toolCall, .invalidToolCall:
                parts.append(.toolCall(index: counts.calls))
                counts.calls += 1
            case .unknown:
                break
            }
        }
        state.parts = parts
    }

    /// Makes the reasoning or the answer the final `texts` joined by part separators: appends what they add when
    /// they start with the streamed text, else replaces it (a rewrite); returns where each text starts in the result.
    private mutating func reconcile(_ texts: [OutputText], reasoning: Bool) -> [Int] {
        // Taken out of the state while it changes, so appending to it does not copy it.
        var streamed = ""
        if reasoning { swap(&streamed, &state.reasoning) } else { swap(&streamed, &state.answer) }
        defer { if reasoning { swap(&streamed, &state.reasoning) } else { swap(&streamed, &state.answer) } }
        if let (starts, rest) = Self.extension(of: &streamed, to: texts) {
            if !rest.isEmpty {
                streamed += rest
                if reasoning { state.reasoningCharacterCount += rest.count }
                updates.append(reasoning ? .reasoningAppended(rest) : .answerAppended(rest))
            }
            return starts
        }
        var final = ""
        var starts: [Int] = []
        for (position, text) in texts.enumerated() {
            if position > 0 { final += ReplyState.partSeparator }
            starts.append(final.utf8.count)
            final += text.string
        }
        streamed = final
        state.isRewritten = true
        if reasoning { state.reasoningCharacterCount = final.count }
        updates.append(reasoning ? .reasoningReplaced(final) : .answerReplaced(final))
        return starts
    }

    /// When `texts` joined by part separators start with `streamed`: where each text starts and what they add to it.
    ///
    /// Compares in place and decodes only the added text. Nil when they do not start with it, or when a text's
    /// encoded form differs from its decoded one (invalid UTF-8), which the caller's full comparison settles.
    private static func `extension`(of streamed: inout String, to texts: [OutputText]) -> (starts: [Int], rest: String)? {
        streamed.withUTF8 { streamed -> (starts: [Int], rest: String)? in
            var offset = 0
            var starts: [Int] = []
            var rest = ""
            for (position, text) in texts.enumerated() {
                if position > 0 {
                    for byte in ReplyState.partSeparator.utf8 {
                        if offset < streamed.count {
                            guard streamed[offset] == byte else { return nil }
                        } else {
                            rest.append(Character(Unicode.Scalar(byte)))
                        }
                        offset += 1
                    }
                }
                starts.append(offset)
                if offset >= streamed.count {
                    let added = text.string
                    rest += added
                    offset += added.utf8.count
                    continue
                }
                let (count, whole) = text.commonPrefix(withUTF8: UnsafeBufferPointer(rebasing: streamed[offset...]))
                if whole {
                    offset += count
                } else if offset + count == streamed.count {
                    let added = text.dropFirst(utf8: count)
                    rest += added
                    offset += count + added.utf8.count
                } else {
                    return nil
                }
            }
            return offset >= streamed.count ? (starts, rest) : nil
        }
    }

    private func clamp(_ value: Double) -> Double { min(1, max(0, value)) }
}
