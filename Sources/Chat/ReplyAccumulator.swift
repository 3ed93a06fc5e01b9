import LMStudio

/// Reduces a chat stream's events to a `ReplyState`.
///
/// Reasoning, answer text and tool activity are kept apart; a reply is complete only when `chat.end`
/// arrived, and then its `result` replaces what the deltas built (unless the result carries no output,
/// which must not erase text that streamed).
public struct ReplyAccumulator: Sendable {
    public private(set) var state = ReplyState()

    /// Creates an accumulator for a new reply.
    public init() {}

    /// Applies one event.
    public mutating func apply(_ event: ChatEvent) {
        switch event {
        case .chatStart(let instance):
            state.modelInstanceId = instance ?? state.modelInstanceId
        case .modelLoadStart(let instance):
            state.loadingModelInstanceId = instance
            state.stage = .loadingModel(progress: 0)
        case .modelLoadProgress(let progress):
            state.stage = .loadingModel(progress: clamp(progress))
        case .modelLoadEnd(let seconds):
            state.modelLoadSeconds = seconds
            state.stage = .waiting
        case .promptProcessingStart:
            state.stage = .processingPrompt(progress: 0)
        case .promptProcessingProgress(let progress):
            state.stage = .processingPrompt(progress: clamp(progress))
        case .promptProcessingEnd:
            state.stage = .waiting
        case .reasoningStart:
            beginReasoningPart()
        case .reasoningDelta(let text):
            if !lastPartIsReasoning { beginReasoningPart() }
            state.reasoning += text
            state.reasoningCharacterCount += text.count
        case .reasoningEnd:
            state.stage = .waiting
        case .toolCallStart(let tool, let provider):
            appendCall(ToolCallState(name: tool, provider: provider))
            state.stage = .toolCall(name: tool)
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
            state.stage = .waiting
        case .toolCallFailure(let reason, let metadata):
            let name = metadata?.toolName ?? state.toolCalls.first { $0.status == .running }?.name ?? "tool"
            updateRunningCall(named: name, orAppend: ToolCallState(name: name, arguments: metadata?.arguments,
                                                                  provider: metadata?.providerInfo,
                                                                  status: .failed(reason: reason))) {
                $0.arguments = metadata?.arguments ?? $0.arguments
                $0.provider = metadata?.providerInfo ?? $0.provider
                $0.status = .failed(reason: reason)
            }
            state.stage = .waiting
        case .messageStart:
            beginMessagePart()
        case .messageDelta(let text):
            if !lastPartIsMessage { beginMessagePart() }
            state.answer += text
        case .messageEnd:
            break
        case .error(let payload):
            state.errors.append(payload)
        case .chatEnd(let result):
            adopt(result)
        }
    }

    private var lastPartIsReasoning: Bool {
        if case .reasoning? = state.parts.last { true } else { false }
    }

    private var lastPartIsMessage: Bool {
        if case .message? = state.parts.last { true } else { false }
    }

    private mutating func beginReasoningPart() {
        if !state.reasoning.isEmpty {
            state.reasoning += ReplyState.partSeparator
            state.reasoningCharacterCount += ReplyState.partSeparator.count
        }
        state.parts.append(.reasoning(start: state.reasoning.utf8.count))
        state.stage = .reasoning
    }

    private mutating func beginMessagePart() {
        if !state.answer.isEmpty { state.answer += ReplyState.partSeparator }
        state.parts.append(.message(start: state.answer.utf8.count))
        state.stage = .answering
    }

    private mutating func appendCall(_ call: ToolCallState) {
        state.parts.append(.toolCall(index: state.toolCalls.count))
        state.toolCalls.append(call)
    }

    /// Tool call events carry no id: they are matched to the first running call of that name, in order.
    private mutating func updateRunningCall(named name: String, orAppend fallback: ToolCallState,
                                            _ update: (inout ToolCallState) -> Void) {
        if let index = state.toolCalls.firstIndex(where: { $0.status == .running && $0.name == name }) {
            update(&state.toolCalls[index])
        } else {
            appendCall(fallback)
        }
    }

    /// Applies the authoritative `chat.end` result.
    private mutating func adopt(_ result: ChatResult) {
        state.isComplete = true
        state.stage = .ended
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
                rebuilt.beginReasoningPart()
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
        state.reasoning = rebuilt.state.reasoning
        state.reasoningCharacterCount = rebuilt.state.reasoningCharacterCount
        state.answer = rebuilt.state.answer
        state.toolCalls = rebuilt.state.toolCalls
        state.parts = rebuilt.state.parts
    }

    private func clamp(_ value: Double) -> Double { min(1, max(0, value)) }
}
