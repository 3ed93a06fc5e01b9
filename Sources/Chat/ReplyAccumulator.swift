import LMStudio

/// Reduces a chat stream's events to a `ReplyState` and says exactly what each event changed.
///
/// Reasoning, answer text and tool activity are kept apart; a reply is complete only when `chat.end`
/// arrived, and then its `result` replaces what the deltas built (unless the result carries no output,
/// which must not erase text that streamed, or says the same by ``FinalTextRule``, which keeps it). Nothing that arrives after `chat.end` is applied. Events that
/// could not be read are counted: what they carried is lost, so such a reply is never saved as complete. Where a
/// part starts, and which tool call an event goes to, ``ReplyPartBoundaries`` says.
public struct ReplyAccumulator: Sendable {
    public private(set) var state = ReplyState()
    private var updates: [ReplyUpdate] = []
    private var reasoningOpen = false
    private var boundaries = ReplyPartBoundaries()

    /// Creates an accumulator for a new reply.
    public init() {}

    /// Applies one event that arrived at `time` (an instant of the engine's clock); returns what changed.
    @discardableResult
    public mutating func apply(_ event: ChatEvent, at time: Duration = .zero) -> [ReplyUpdate] {
        guard !state.isComplete else { return [] }
        updates = []
        let placement = boundaries.place(event)
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
            if placement == .starts(.reasoning) { beginReasoningPart(at: time) }
            appendReasoning(text)
        case .reasoningEnd:
            closeReasoning(at: time)
            setStage(.waiting)
        case .toolCallStart(let tool, let provider):
            closeReasoning(at: time)
            appendCall(ToolCallState(name: tool, provider: provider))
            setStage(.toolCall(name: tool))
        case .toolCallName(let tool):
            closeReasoning(at: time)
            setStage(.preparingToolCall(name: tool))
        case .toolCallArguments(let tool, let arguments, let provider):
            if case .preparingToolCall = state.stage { setStage(.toolCall(name: tool)) }
            updateCall(placement, orAppend: ToolCallState(name: tool, arguments: arguments, provider: provider)) {
                $0.arguments = arguments
                $0.provider = provider ?? $0.provider
            }
        case .toolCallSuccess(let tool, let arguments, let output, let provider):
            updateCall(
                placement,
                orAppend: ToolCallState(
                    name: tool, arguments: arguments, output: output,
                    provider: provider, status: .succeeded)
            ) {
                $0.arguments = arguments
                $0.output = output
                $0.provider = provider ?? $0.provider
                $0.status = .succeeded
            }
            setStage(.waiting)
        case .toolCallFailure(let reason, let metadata):
            updateCall(
                placement,
                orAppend: ToolCallState(
                    name: metadata?.toolName ?? "tool", arguments: metadata?.arguments,
                    provider: metadata?.providerInfo, status: .failed(reason: reason))
            ) {
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
            if placement == .starts(.message) { beginMessagePart() }
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
            noteUnreadable(reason)
        }
        return updates
    }

    /// Closes a reasoning span still open when the stream stops at `time`; returns what changed.
    public mutating func close(at time: Duration) -> [ReplyUpdate] {
        updates = []
        closeReasoning(at: time)
        return updates
    }

    /// Counts an event whose content is lost, keeping the first reason.
    private mutating func noteUnreadable(_ reason: String) {
        state.unreadableEventCount += 1
        if state.firstUnreadableEvent == nil { state.firstUnreadableEvent = reason }
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

    /// Updates the running call a tool-call event goes to (events carry no id; ``ReplyPartBoundaries`` matches them),
    /// or appends `fallback` when the event starts a call of its own.
    private mutating func updateCall(
        _ placement: ReplyPartBoundaries.Placement, orAppend fallback: ToolCallState,
        _ update: (inout ToolCallState) -> Void
    ) {
        guard case .updatesCall(let index) = placement else { return appendCall(fallback) }
        update(&state.toolCalls[index])
        updates.append(.toolCallChanged(index: index, state.toolCalls[index]))
    }

    /// Applies the authoritative `chat.end` result: text it says the same as (``FinalTextRule``) stays as it
    /// streamed, text it only extends is appended, text it contradicts is replaced.
    ///
    /// The result's texts are compared with the streamed ones in place; only what they add is decoded, so a
    /// confirmed reply is not held twice.
    private mutating func adopt(_ result: ChatResult) {
        state.isComplete = true
        setStage(.ended)
        state.modelInstanceId = result.modelInstanceId ?? state.modelInstanceId
        state.stats = result.stats ?? state.stats
        state.responseId = result.responseId
        guard Self.carriesOutput(result) else { return }
        let (messages, reasonings, calls) = Self.items(of: result)
        guard let reasoningPlan = reconciliation(of: reasonings, reasoning: true),
            let messagePlan = reconciliation(of: messages, reasoning: false)
        else {
            // A text confirmed while it arrived must start where a streamed part does; the streamed text stays.
            noteUnreadable("the chat.end event's text could not be placed in what streamed")
            return
        }
        let reasoningStarts = apply(reasoningPlan, reasoning: true)
        if Self.drops(state.toolCalls, for: calls) { state.isRewritten = true }
        for (index, call) in calls.enumerated() where index >= state.toolCalls.count || state.toolCalls[index] != call {
            updates.append(.toolCallChanged(index: index, call))
        }
        state.toolCalls = calls
        let messageStarts = apply(messagePlan, reasoning: false)
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

    /// Whether adopting `result` as the final event keeps everything that streamed, saying the same
    /// (``FinalTextRule``) or only extending it; false when it would rewrite, shorten or drop the answer, the
    /// reasoning or tool calls (the streamed version must then be saved first). Compares in place, without changing
    /// or copying the reply.
    public func keepsStreamed(_ result: ChatResult) -> Bool {
        guard Self.carriesOutput(result) else { return true }
        let (messages, reasonings, calls) = Self.items(of: result)
        guard !Self.drops(state.toolCalls, for: calls) else { return false }
        func keeps(_ streamed: String, _ texts: [OutputText], reasoning: Bool) -> Bool {
            streamed.utf8.withContiguousStorageIfAvailable {
                partStarts(sayingTheSameAs: texts, in: $0, reasoning: reasoning) != nil
                    || Self.extension(of: $0, to: texts) != nil
            } == true
        }
        return keeps(state.reasoning, reasonings, reasoning: true) && keeps(state.answer, messages, reasoning: false)
    }

    /// Where the streamed parts of the reasoning (`reasoning`) or the answer, `streamed`, start, when `texts` are as
    /// many and each says the same as its part (``FinalTextRule``); else nil. A part runs to the next one's start:
    /// the separator before it is whitespace at its end.
    private func partStarts(
        sayingTheSameAs texts: [OutputText], in streamed: UnsafeBufferPointer<UInt8>, reasoning: Bool
    ) -> [Int]? {
        let starts = state.parts.compactMap { part -> Int? in
            switch part {
            case .reasoning(let start) where reasoning, .message(let start) where !reasoning: start
            default: nil
            }
        }
        guard starts.count == texts.count else { return nil }
        for (index, text) in texts.enumerated() {
            let end = index + 1 < starts.count ? starts[index + 1] : streamed.count
            guard
                FinalTextRule.saysTheSame(
                    streamed: UnsafeBufferPointer(rebasing: streamed[starts[index]..<end]), final: text)
            else { return nil }
        }
        return starts
    }

    /// Whether `result` has output the reply is made of (an empty or unknown-only output keeps what streamed).
    private static func carriesOutput(_ result: ChatResult) -> Bool {
        result.output.contains(where: { if case .unknown = $0 { false } else { true } })
    }

    /// The final event's answer texts, reasoning texts and tool calls, in order.
    private static func items(of result: ChatResult) -> (
        messages: [OutputText], reasonings: [OutputText], calls: [ToolCallState]
    ) {
        var messages: [OutputText] = []
        var reasonings: [OutputText] = []
        var calls: [ToolCallState] = []
        for item in result.output {
            switch item {
            case .message(let text): messages.append(text)
            case .reasoning(let text): reasonings.append(text)
            case .toolCall(let call):
                calls.append(
                    ToolCallState(
                        name: call.tool, arguments: call.arguments, output: call.output,
                        provider: call.providerInfo, status: .succeeded))
            case .invalidToolCall(let invalid):
                calls.append(
                    ToolCallState(
                        name: invalid.metadata?.toolName ?? "tool", arguments: invalid.metadata?.arguments,
                        provider: invalid.metadata?.providerInfo, status: .failed(reason: invalid.reason)))
            case .unknown:
                break
            }
        }
        return (messages, reasonings, calls)
    }

    /// Whether the final `calls` lose streamed ones: fewer of them, or others in their place (a streamed call without
    /// arguments yet may get them), which loses what streamed as surely as a rewritten text.
    private static func drops(_ streamed: [ToolCallState], for calls: [ToolCallState]) -> Bool {
        calls.count < streamed.count
            || zip(streamed, calls).contains {
                $0.name != $1.name || ($0.arguments != nil && $0.arguments != $1.arguments)
            }
    }

    /// How the reasoning or the answer becomes the final `texts` joined by part separators.
    private enum Reconciliation {
        /// The texts say the same as the streamed parts, which stay as they are.
        case keep(starts: [Int])
        /// The texts start with the streamed text: `rest` is appended.
        case extend(starts: [Int], rest: String)
        /// The texts contradict it: `final` replaces it (a rewrite).
        case replace(starts: [Int], final: String)
    }

    /// How the streamed reasoning or answer becomes `texts`; nil when a text confirmed against the streamed reply
    /// (``OutputText/needsStreamedText``) starts at no streamed part, of either kind.
    private mutating func reconciliation(of texts: [OutputText], reasoning: Bool) -> Reconciliation? {
        let own = reasoning ? state.reasoning : state.answer
        let other = reasoning ? state.answer : state.reasoning
        return own.utf8.withContiguousStorageIfAvailable { streamed -> Reconciliation? in
            if let starts = partStarts(sayingTheSameAs: texts, in: streamed, reasoning: reasoning) {
                return .keep(starts: starts)
            }
            if let (starts, rest) = Self.extension(of: streamed, to: texts) {
                return .extend(starts: starts, rest: rest)
            }
            var final = ""
            var starts: [Int] = []
            for (position, text) in texts.enumerated() {
                if position > 0 { final += ReplyState.partSeparator }
                starts.append(final.utf8.count)
                guard
                    let whole = text.string ?? resolve(text, in: streamed, reasoning: reasoning)
                        ?? other.utf8.withContiguousStorageIfAvailable({ resolve(text, in: $0, reasoning: !reasoning) })
                        ?? nil
                else { return nil }
                final += whole
            }
            return .replace(starts: starts, final: final)
        } ?? nil
    }

    /// `text` with its confirmed start read from `source`, the streamed reasoning (`reasoning`) or answer, at the
    /// start of one of its parts; nil when none holds it.
    private func resolve(_ text: OutputText, in source: UnsafeBufferPointer<UInt8>, reasoning: Bool) -> String? {
        for part in state.parts {
            switch part {
            case .reasoning(let start) where reasoning, .message(let start) where !reasoning:
                if let whole = text.resolved(in: source, at: start) { return whole }
            default:
                continue
            }
        }
        return nil
    }

    /// Makes the reasoning or the answer what `plan` says; returns where each final text starts.
    private mutating func apply(_ plan: Reconciliation, reasoning: Bool) -> [Int] {
        switch plan {
        case .keep(let starts):
            return starts
        case .extend(let starts, let rest):
            guard !rest.isEmpty else { return starts }
            if reasoning {
                state.reasoning += rest
                state.reasoningCharacterCount += rest.count
            } else {
                state.answer += rest
            }
            updates.append(reasoning ? .reasoningAppended(rest) : .answerAppended(rest))
            return starts
        case .replace(let starts, let final):
            if reasoning {
                state.reasoning = final
                state.reasoningCharacterCount = final.count
            } else {
                state.answer = final
            }
            state.isRewritten = true
            updates.append(reasoning ? .reasoningReplaced(final) : .answerReplaced(final))
            return starts
        }
    }

    /// When `texts` joined by part separators start with `streamed`: where each text starts and what they add to it.
    ///
    /// Compares in place and decodes only the added text. Nil when they do not start with it, or when a text's
    /// encoded form differs from its decoded one (invalid UTF-8), which the caller's full comparison settles.
    private static func `extension`(of streamed: UnsafeBufferPointer<UInt8>, to texts: [OutputText]) -> (
        starts: [Int], rest: String
    )? {
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
                guard let added = text.string else { return nil }
                rest += added
                offset += added.utf8.count
                continue
            }
            let (count, whole) = text.commonPrefix(withUTF8: UnsafeBufferPointer(rebasing: streamed[offset...]))
            if whole {
                offset += count
            } else if offset + count == streamed.count, let added = text.dropFirst(utf8: count) {
                rest += added
                offset += count + added.utf8.count
            } else {
                return nil
            }
        }
        return offset >= streamed.count ? (starts, rest) : nil
    }

    private func clamp(_ value: Double) -> Double { min(1, max(0, value)) }
}
