import LMStudio
import Library

/// What a face hands the engine for one turn: the text as typed and what goes with it.
///
/// A turn that is not sent comes back to the face unchanged (`TurnOutcome.returned`), so nothing typed is lost.
public struct TurnSubmission: Sendable, Equatable {
    /// What the turn does with the conversation's branch.
    public enum Kind: Sendable, Equatable {
        /// A new message after the branch's last reply.
        case message
        /// The branch's last user turn asked again; its reply (if any) stays as an alternative. `text` is not used.
        case retry
        /// The branch's last user turn replaced by `text` (its images and items kept) and sent; the original stays as
        /// an alternative.
        case edit
    }

    public var kind = Kind.message
    /// For a retry or an edit: the id of the branch's last user message as the face showed it, when the face knows it.
    /// Another face may have sent since; then the turn is refused (`ChatError.branchMovedOn`) rather than asked again
    /// or edited on a message the user never saw.
    public var lastMessageId: String?
    /// The text as typed.
    public var text: String
    public var images: [ImageInput]
    /// Files, pages and command output sent before the text.
    public var context: [ContextItem]
    /// The preset whose template the text fills (`{{input}}`, and `stdin` `{{stdin}}`); the library keeps the filled text.
    public var template: Preset?
    public var stdin: String?
    /// The answer to `TurnDecision.freshContext`, given ahead (`ask --fresh-context`, rpc `freshContext`, an accepted
    /// offer); nil: the engine asks when the turn needs a fresh server context.
    public var serverContext: ServerContextChoice?
    /// The answer to `TurnDecision.overflow`, given ahead (`ask --on-overflow`, rpc `onOverflow`, the REPL's question).
    public var overflowChoice: OverflowChoice?
    /// Whether a turn that would overflow the context is sent all the same (`overflowChoice` `.send`).
    public var sendsPastOverflow: Bool {
        get { overflowChoice == .send }
        set { overflowChoice = newValue ? .send : nil }
    }
    /// The answer, given ahead, of a face that asks nothing (`ask`, rpc, voice) when the system prompt changed after the
    /// context began: this turn starts a fresh server context, so the new prompt reaches the model (`TurnStep` says so).
    public var changedPromptStartsFresh = false
    /// The answer, given ahead, of a face that asks nothing (voice) to a turn that would only fill the context past
    /// `context_warn_percent`: send it; one that would overflow the context still waits for a decision.
    public var sendsNearlyFull = false

    /// Creates a submission.
    public init(
        text: String, images: [ImageInput] = [], context: [ContextItem] = [], template: Preset? = nil,
        stdin: String? = nil,
        serverContext: ServerContextChoice? = nil
    ) {
        self.text = text
        self.images = images
        self.context = context
        self.template = template
        self.stdin = stdin
        self.serverContext = serverContext
    }

    /// The conversation's last user turn asked again (`Kind.retry`).
    public static func retry(serverContext: ServerContextChoice? = nil) -> TurnSubmission {
        var submission = TurnSubmission(text: "", serverContext: serverContext)
        submission.kind = .retry
        return submission
    }

    /// The conversation's last user turn replaced by `text` (`Kind.edit`).
    public static func edit(_ text: String, serverContext: ServerContextChoice? = nil) -> TurnSubmission {
        var submission = TurnSubmission(text: text, serverContext: serverContext)
        submission.kind = .edit
        return submission
    }

    /// The message as sent and saved: the template filled (`Preset.filled`), else the text with `stdin` after a blank line.
    public var message: String { (template ?? Preset(name: "")).filled(input: text, stdin: stdin) }

    /// The turn as sent and saved.
    var turn: Turn { Turn(text: message, images: images, context: context) }
}

/// What to do with a turn that would fill the context past `context_warn_percent` (`TurnDecision.overflow`).
public enum OverflowChoice: String, Sendable, Equatable, CaseIterable {
    /// Reload the model with a larger context (`ContextOverflow.growTo`), then continue the conversation.
    case grow
    /// Start a fresh server context that begins with a recap of the earlier turns.
    case recap
    /// Send it as it is.
    case send
}

/// A turn that would fill the context past `context_warn_percent`, with its figures and what a larger context would be.
///
/// The estimate: the last reply's `input_tokens` and output tokens, as the server reported them, plus the new message
/// and its items at about four characters a token (`ContextMeter`).
public struct ContextOverflow: Sendable, Equatable {
    /// The context meter's figures once the turn is sent (`ctx 9.1k/8k 114%`).
    public var label: String
    /// The chips of the turn's context items.
    public var items: [String]
    /// Whether the turn goes past the context itself, not only past the warning share.
    public var exceeds: Bool
    /// The model a reload would load.
    public var model: String
    /// The context a reload would load it with: the smallest power of two that holds the turn under the warning
    /// share, at most the model's `max_context_length`; nil when that is no larger or cannot hold the turn.
    public var growTo: Int?
    /// What a recap of the earlier turns costs, when there are any.
    public var recap: RecapEstimate?

    public init(label: String, items: [String], exceeds: Bool, model: String, growTo: Int?, recap: RecapEstimate?) {
        self.label = label
        self.items = items
        self.exceeds = exceeds
        self.model = model
        self.growTo = growTo
        self.recap = recap
    }

    /// The choices that apply: `grow` only with a larger context to grow to, `recap` only with earlier turns.
    public var choices: [OverflowChoice] {
        OverflowChoice.allCases.filter { $0 == .grow ? growTo != nil : $0 == .recap ? recap != nil : true }
    }
}

/// Which server context a turn is sent in.
public enum ServerContextChoice: String, Sendable, Equatable {
    /// The conversation's context as it is; only for a changed system prompt (which then waits), never for a lost context.
    case keep
    /// A fresh, empty one: the model does not see the earlier turns.
    case empty
    /// A fresh one with a ``Recap`` of the earlier turns as its first input.
    case recap
}

/// Why a turn needs a fresh server context.
public enum FreshContextReason: Sendable, Equatable {
    /// The system prompt changed after the context began; LM Studio reads it only on a context's first request.
    case systemPromptChanged
    /// The server no longer knows the conversation's context (`ChatError.continuationLost`).
    case continuationLost
    /// Another server holds the context (`ChatError.continuationElsewhere`): this one would answer without the earlier turns.
    case continuationElsewhere(ChatError)

    /// The reason in a sentence.
    public var description: String {
        switch self {
        case .systemPromptChanged:
            "The new system prompt reaches the model only with a fresh server context (the model will not remember earlier turns)."
        case .continuationLost: ChatError.continuationLost(conversationId: "").description
        case .continuationElsewhere(let error): error.description
        }
    }
}

/// A question a turn raises before it can be sent: the face asks the user (or answers from its options) and submits
/// the turn again with the answer (`TurnSubmission.serverContext`, `overflowChoice`, or a chosen model).
public enum TurnDecision: Sendable, Equatable, CustomStringConvertible {
    /// No model is chosen and none is loaded: pick one of `candidates` (the server's chat models).
    case chooseModel(candidates: [String])
    /// The turn would fill the context past `context_warn_percent` or overflow it.
    case overflow(ContextOverflow)
    /// The turn needs a fresh server context; `recap` is what a recap of the earlier turns costs (nil: there are none).
    case freshContext(FreshContextReason, recap: RecapEstimate?)

    /// What to tell the user.
    public var description: String {
        switch self {
        case .chooseModel: ChatError.noModel.description
        case .overflow(let overflow):
            "This message" + (overflow.items.isEmpty ? "" : " and its context items")
                + (overflow.exceeds ? " would overflow the context" : " would nearly fill the context")
                + " (\(overflow.label))"
                + (overflow.items.isEmpty ? "." : ":\n" + overflow.items.map { "  " + $0 }.joined(separator: "\n"))
        case .freshContext(let reason, _): reason.description
        }
    }
}

/// A step of preparing a turn, reported as it happens.
public enum TurnStep: Sendable, Equatable {
    /// A model was chosen, loaded or unloaded under the load policy.
    case model(ModelSelectionStep)
    /// The turn starts a fresh server context for this reason, as `TurnSubmission.changedPromptStartsFresh` asked.
    case startsFreshContext(FreshContextReason)
}

/// What became of a turn: the one answer every face shows.
public enum TurnOutcome: Sendable {
    /// The turn and its reply are saved; the reply complete, or incomplete or failed with its reason.
    case sent(SavedReply)
    /// Cancelled while the reply streamed: the partial reply is saved, with the reason.
    case cancelled(SavedReply)
    /// Not sent until the face answers `decision`; nothing is saved.
    case needsDecision(TurnDecision, returned: TurnSubmission)
    /// Refused before anything reached the server (no model, no vision, items too large, …); nothing is saved.
    case refused(any Error, returned: TurnSubmission)
    /// The send failed before any reply (no server, an HTTP error, cancelled before the answer began); nothing is saved.
    case failed(any Error, returned: TurnSubmission)

    /// The saved reply, when the turn was sent.
    public var reply: SavedReply? {
        switch self {
        case .sent(let reply), .cancelled(let reply): reply
        case .needsDecision, .refused, .failed: nil
        }
    }

    /// The submission handed back, when nothing was sent.
    public var returned: TurnSubmission? {
        switch self {
        case .sent, .cancelled: nil
        case .needsDecision(_, let returned), .refused(_, let returned), .failed(_, let returned): returned
        }
    }
}

extension ChatSession {
    /// Sends a turn as every face does: the conversation's model loaded under the load policy, the template filled, then
    /// the reply streamed and saved. Returns what became of the turn; it never leaves an unanswered turn in the library.
    ///
    /// A turn that needs a fresh server context (a changed system prompt, a lost context, one held by another server),
    /// would overflow the context, or has no model comes back as `needsDecision`; the face submits it again with the
    /// answer. `progress` hears the load policy's steps. A turn not sent leaves the library as the face found it: with
    /// `opened` (`openConversation`'s answer for this turn) a conversation it created goes and what its overrides
    /// changed is put back, so a refused `-m` typo or prompt leaves the conversation as it was. `stopReason` says why a
    /// cancelled reply stopped ("Output closed"); nil gives the usual reason. A resend of the text of the branch's
    /// unanswered last turn (which older versions left after a failed send) answers that turn instead of repeating it.
    public func submit(
        _ submission: TurnSubmission, in conversationId: String, opened: OpenedConversation? = nil,
        progress: @escaping @Sendable (TurnStep) async -> Void = { _ in },
        stopReason: @escaping @Sendable () -> String? = { nil },
        display: @escaping ReplyObserver,
        replyCreated: (@Sendable (String) async -> Void)? = nil
    ) async -> TurnOutcome {
        let writing: WriterTurn
        do { writing = try await writerLock(conversationId) } catch {
            if let opened { try? storage { try restoreOverridden(opened) } }
            return Self.refuses(error) ? .refused(error, returned: submission) : .failed(error, returned: submission)
        }
        defer { withExtendedLifetime(writing) {} }
        let outcome = await attempt(
            submission, in: conversationId, progress: progress, stopReason: stopReason,
            display: display, replyCreated: replyCreated)
        // Still the conversation's writer: nobody else can have sent to it meanwhile.
        if outcome.reply != nil, submission.kind == .message {
            try? storage { try clearDraft(sentAs: submission.text, in: conversationId) }
        }
        if outcome.reply == nil {
            if opened?.isNew == true {
                try? storage { try discardUnanswered(conversationId) }
            } else if let opened {
                try? storage { try restoreOverridden(opened) }
            }
        }
        return outcome
    }

    /// Clears the conversation's draft when it is the message just sent, whichever face kept it and whichever sent it
    /// (an editor's draft sent with `ask --chat`), so no face offers it to be sent a second time.
    private func clearDraft(sentAs text: String, in conversationId: String) throws {
        let sent = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let draft = try library.conversation(id: conversationId)?.draft, !sent.isEmpty,
            draft.trimmingCharacters(in: .whitespacesAndNewlines) == sent
        else { return }
        try library.setDraft(conversationId: conversationId, text: "")
    }

    /// Puts back what `openConversation`'s overrides changed (title, model, system prompt, settings) as `opened`
    /// found them, each only where it still holds what the overrides wrote: what changed since (another send's
    /// overrides, a context grown by the load policy, a lost server context) stays, and so do integrations, which are
    /// saved before sending.
    private func restoreOverridden(_ opened: OpenedConversation) throws {
        guard let previous = opened.previous, let saved = try library.conversation(id: previous.id) else { return }
        let applied = opened.conversation
        var current = saved
        func putBack<Value: Equatable>(_ field: WritableKeyPath<Conversation, Value>) {
            if current[keyPath: field] == applied[keyPath: field] { current[keyPath: field] = previous[keyPath: field] }
        }
        putBack(\.title)
        putBack(\.modelKey)
        if current.systemPrompt == applied.systemPrompt, applied.systemPrompt != previous.systemPrompt {
            current.systemPrompt = previous.systemPrompt
            current.needsFreshContext = previous.needsFreshContext
        }
        putBack(\.settings.temperature)
        putBack(\.settings.topP)
        putBack(\.settings.topK)
        putBack(\.settings.minP)
        putBack(\.settings.repeatPenalty)
        putBack(\.settings.maxOutputTokens)
        putBack(\.settings.reasoning)
        putBack(\.settings.contextLength)
        if current != saved { try library.updateConversation(current) }
    }

    /// `submit`, by the conversation's writer. The cheap refusals come first, then what changes the server (the load).
    ///
    /// A retry or an edit is asked in the context the replaced turn was asked in, so its recap leaves that turn out and
    /// a retry is not checked for overflow (it was sent in that context before).
    private func attempt(
        _ submission: TurnSubmission, in conversationId: String,
        progress: @escaping @Sendable (TurnStep) async -> Void, stopReason: @escaping @Sendable () -> String?,
        display: @escaping ReplyObserver, replyCreated: (@Sendable (String) async -> Void)?
    ) async -> TurnOutcome {
        let resends = submission.kind != .message
        do {
            let conversation = try existingConversation(conversationId)
            // The server the conversation is held on, before anything is asked of a server.
            try followServer(of: conversation)
            if resends {
                guard let last = try lastUserMessage(in: conversationId) else { throw ChatError.nothingToRetry }
                if let shown = submission.lastMessageId, shown != last.id {
                    throw ChatError.branchMovedOn(edit: submission.kind == .edit)
                }
            }
            let turn = submission.turn
            try contextLimits.check(turn.context)
            var choice = submission.serverContext
            if choice != .empty, choice != .recap,
                let reason = freshContextReason(conversation, keeping: choice == .keep)
            {
                guard reason == .systemPromptChanged, submission.changedPromptStartsFresh, choice == nil else {
                    return .needsDecision(
                        .freshContext(reason, recap: await recapOffer(conversationId, excludingLastTurn: resends)),
                        returned: submission)
                }
                choice = .empty
                await progress(.startsFreshContext(reason))
            }
            if let candidates = try await loadUnderPolicy(conversationId, progress: progress) {
                return .needsDecision(.chooseModel(candidates: candidates), returned: submission)
            }
            var grown = false
            if submission.kind != .retry, submission.overflowChoice != .send,
                let overflow = try await contextOverflow(
                    turn, resent: submission.kind == .edit ? try lastTurn(in: conversationId).context : [],
                    conversation: try existingConversation(conversationId),
                    fresh: choice == .empty || choice == .recap, excludingLastTurn: resends)
            {
                switch submission.overflowChoice {
                case nil where submission.sendsNearlyFull && !overflow.exceeds:
                    break
                case nil, .send?:
                    return .needsDecision(.overflow(overflow), returned: submission)
                case .recap?:
                    guard overflow.recap != nil else {
                        return .needsDecision(.overflow(overflow), returned: submission)
                    }
                    choice = .recap
                case .grow?:
                    guard let size = overflow.growTo else {
                        return .needsDecision(.overflow(overflow), returned: submission)
                    }
                    try await growContext(conversationId, to: size, progress: progress)
                    grown = true
                }
            }
            let fresh = choice == .empty || choice == .recap
            do {
                let recap = choice == .recap
                var saved =
                    switch submission.kind {
                    case .message:
                        try await sendAsWriter(
                            turn, in: conversationId, freshContext: fresh, recap: recap, answeringUnanswered: true,
                            stopReason: stopReason, display: display, replyCreated: replyCreated)
                    case .retry:
                        try await regenerateAsWriter(
                            in: conversationId, freshContext: fresh, recap: recap, display: display,
                            replyCreated: replyCreated)
                    case .edit:
                        try await editAsWriter(
                            in: conversationId, text: turn.text, freshContext: fresh, recap: recap, display: display,
                            replyCreated: replyCreated)
                    }
                saved.startedFreshContext = fresh
                return saved.wasCancelled ? .cancelled(saved) : .sent(saved)
            } catch ChatError.continuationLost where !fresh && grown {
                // The reload cost the server its stored context: the turn goes on with a recap, as the growth promised.
                var again = submission
                again.serverContext = .recap
                again.overflowChoice = .send
                return await attempt(
                    again, in: conversationId, progress: progress, stopReason: stopReason, display: display,
                    replyCreated: replyCreated)
            } catch ChatError.continuationLost where !fresh {
                // Nothing was saved: the face asks whether to go on in a fresh context, and submits the turn again.
                return .needsDecision(
                    .freshContext(
                        .continuationLost, recap: await recapOffer(conversationId, excludingLastTurn: resends)),
                    returned: submission)
            }
        } catch {
            return Self.refuses(error) ? .refused(error, returned: submission) : .failed(error, returned: submission)
        }
    }

    /// Why the conversation's next turn needs a fresh server context, if it does: another server holds its context, or
    /// (unless `keeping`) its system prompt changed after the context began.
    private func freshContextReason(_ conversation: Conversation, keeping: Bool) -> FreshContextReason? {
        do { try requireServerContextHere(conversation) } catch let error as ChatError {
            return .continuationElsewhere(error)
        } catch {}
        return conversation.systemPromptAwaitsFreshContext && !keeping ? .systemPromptChanged : nil
    }

    /// Whether `error` is a check that refused the turn before anything reached the server (rather than a failure).
    private static func refuses(_ error: any Error) -> Bool {
        if error is ContextError { return true }
        guard let error = error as? ChatError else { return false }
        return [.invalid, .modelNotFound].contains(error.category)
    }

    /// What a recap of the conversation's earlier turns would cost; nil when there are none.
    private func recapOffer(_ conversationId: String, excludingLastTurn: Bool) async -> RecapEstimate? {
        let estimate = try? await recapEstimate(conversationId: conversationId, excludingLastTurn: excludingLastTurn)
        return estimate?.isEmpty == false ? estimate : nil
    }

    /// `turn` against the conversation's context (counted from empty when the turn starts a fresh one): nil when it
    /// stays under `context_warn_percent` or no limit is known, else the figures and what a larger context would be.
    /// `resent` are the context items that go again with the turn (an edit keeps those of the turn it replaces): they
    /// count, but are not the items the user may drop.
    private func contextOverflow(
        _ turn: Turn, resent: [ContextItem], conversation: Conversation, fresh: Bool, excludingLastTurn: Bool
    ) async throws -> ContextOverflow? {
        let effective = EffectiveModel.resolve(
            conversation: conversation, pending: nil, defaultModel: configuration.defaultModelKey,
            models: try? await models())
        var meter = try contextMeter(conversation: conversation, model: effective)
        if fresh {
            meter = ContextMeter(usedTokens: 0, contextLength: meter.contextLength)
        } else if excludingLastTurn, let replaced = try lastUserMessage(in: conversation.id) {
            // An edit is sent in the context before the turn it replaces: counted from the reply before that turn.
            let before = try storage {
                try library.lastReplyStatistics(conversationId: conversation.id, before: replaced.id)
            }
            meter = ContextMeter(
                usedTokens: (before?.inputTokens ?? 0).saturatingAdd(before?.totalOutputTokens ?? 0),
                contextLength: meter.contextLength)
        }
        let input = ContextItem.input(resent + turn.context, message: turn.text)
        guard let length = meter.contextLength, meter.wouldFill(draft: input, percent: configuration.contextWarnPercent)
        else { return nil }
        let projected = meter.projected(draft: input)
        return ContextOverflow(
            label: meter.label(draft: input), items: turn.context.map(\.chip), exceeds: projected > length,
            model: effective?.key ?? "the model",
            growTo: Self.grownContext(
                for: projected, current: length, maximum: effective?.model?.maxContextLength,
                percent: configuration.contextWarnPercent),
            recap: await recapOffer(conversation.id, excludingLastTurn: excludingLastTurn))
    }

    /// The context a reload gives a turn of `projected` tokens: the smallest power of two it fills to at most `percent`,
    /// capped at the model's `maximum`; nil when that is not larger than `current` or cannot hold the turn.
    public nonisolated static func grownContext(for projected: Int, current: Int, maximum: Int?, percent: Int) -> Int? {
        guard let maximum, maximum > current else { return nil }
        let needed = projected.saturatingMultiply(100) / max(percent, 1) + 1
        var size = 1024
        while size < needed, size < maximum { size = size.saturatingMultiply(2) }
        size = min(size, maximum)
        return size > current && size >= projected ? size : nil
    }

    /// Reloads the conversation's model with a context of `size` tokens: the instance that served it is unloaded first
    /// and replaced (`keep_previous_models` is about switching models; a kept small instance would go on serving the
    /// conversation, which would ask to grow again), the new one loaded (`echo_load_config` says what the server applied), and the
    /// conversation keeps `size` for later loads once it loaded (a load that fails puts the old instance back). The
    /// conversation's server context is not touched: the next request continues it when the server still knows it.
    private func growContext(
        _ conversationId: String, to size: Int, progress: @escaping @Sendable (TurnStep) async -> Void
    ) async throws {
        // The list this turn's load policy just asked for; the load below refreshes it.
        let models = try await serverCall { try await self.models() }
        guard
            let effective = EffectiveModel.resolve(
                conversation: try existingConversation(conversationId), pending: nil,
                defaultModel: configuration.defaultModelKey, models: models),
            let model = effective.model
        else { throw ChatError.noModel }
        let replaced = effective.instance
        if let replaced {
            try await serverCall { try await client.unload(instanceId: replaced.id) }
            await progress(.model(.unloaded(replaced.id)))
        }
        await progress(.model(.loading(model.key)))
        let response: LoadResponse
        do {
            response = try await loadKey(
                model.key, conversationId: conversationId, options: LoadOptions(contextLength: size))
        } catch {
            // The larger context did not load (memory, guardrails): the model comes back as it was, and the size is not kept.
            if let replaced {
                _ = try? await loadKey(
                    model.key, conversationId: conversationId,
                    options: LoadOptions(contextLength: replaced.config.contextLength))
            }
            throw error
        }
        await progress(.model(.loaded(response)))
        var conversation = try existingConversation(conversationId)
        conversation.settings.contextLength = size
        if conversation.modelKey != model.key { conversation.modelKey = model.key }
        let changed = conversation
        try storage { try library.updateConversation(changed) }
    }

    /// Makes sure the conversation's model is loaded before the turn, under the load policy: one the server has but
    /// not loaded is loaded here and the previous chat model unloaded (unless `keep_previous_models`), rather than
    /// loaded just in time by the server beside it. Returns the chat models to choose from when no model applies.
    ///
    /// Asks the server for its models each turn (one small request): another face or client may have loaded or unloaded
    /// models since, and a stale list would leave the load to the server, beside the model the policy would unload.
    private func loadUnderPolicy(_ conversationId: String, progress: @escaping @Sendable (TurnStep) async -> Void)
        async throws -> [String]?
    {
        let conversation = try existingConversation(conversationId)
        let models = try await serverCall { try await self.models(refresh: true) }
        guard
            let effective = EffectiveModel.resolve(
                conversation: conversation, pending: nil, defaultModel: configuration.defaultModelKey,
                models: models)
        else {
            let candidates = models.filter(\.canChat).map(\.key)
            if candidates.isEmpty { throw ChatError.noModel }
            return candidates
        }
        guard effective.state == .notLoaded, effective.model?.canChat == true else { return nil }
        let previous = models.first { $0.canChat && $0.isLoaded && $0.key != effective.key }?.key
        _ = try await selectModel(effective.reference, conversationId: conversationId, replacing: previous) {
            await progress(.model($0))
        }
        return nil
    }
}

extension TurnOutcome {
    /// The saved reply, for a face that asks nothing: a decision the turn waits for throws `TurnDecisionNeeded`, a
    /// refusal or failure its error.
    public func savedReply() throws -> SavedReply {
        switch self {
        case .sent(let reply), .cancelled(let reply): return reply
        case .needsDecision(let decision, _): throw TurnDecisionNeeded(decision: decision)
        case .refused(let error, _), .failed(let error, _): throw error
        }
    }
}

/// A turn not sent because it waits for a decision the face does not ask (see `TurnOutcome.savedReply()`).
public struct TurnDecisionNeeded: Error, CustomStringConvertible {
    public let decision: TurnDecision

    /// The category of the failure (see `ErrorCategory`), by what the turn waits for.
    public var category: ErrorCategory {
        switch decision {
        case .chooseModel: .modelNotFound
        case .overflow: .contextOverflow
        case .freshContext: .continuationLost
        }
    }

    public var description: String { decision.description + " Nothing was sent." }
}
