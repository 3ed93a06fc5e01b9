import Chat
import Foundation
import LMStudio
import Library
import Markdown
import SystemSupport
import TerminalMarkdown

/// Sending a message: the turn goes to the engine (`ChatSession.submit`), which decides its fate; this shows the
/// outcome, asks the questions the engine leaves to the user, streams the reply and puts unsent text back in the line.
extension ReplSession {
    /// The conversation to send on, created (with the `/model` and `/preset` choices) through
    /// `ChatSession.openConversation` when there is none yet.
    func ensureConversation() async throws -> String { try await conversationForTurn().id }

    /// `ensureConversation`, with `openConversation`'s answer when the conversation was made now: a turn passes it
    /// to `ChatSession.submit`, which removes the conversation when the turn is not sent.
    private func conversationForTurn() async throws -> (id: String, opened: OpenedConversation?) {
        if let conversationId { return (conversationId, nil) }
        let overrides = ConversationOverrides(model: pendingModel, preset: pendingPreset)
        let opened = try await chat.openConversation(.new, overrides: overrides)
        conversationId = opened.conversation.id
        shownDraft = opened.conversation.draft
        pendingPreset = nil
        return (opened.conversation.id, opened)
    }

    /// Sends `text` with the waiting images and context items as one turn through `ChatSession.submit`, answering at
    /// the prompt the decisions it raises; a turn not sent comes back into the line with its items. Returns an exit
    /// status after SIGTERM/SIGHUP.
    func send(_ text: String) async -> Int32? {
        let submission = TurnSubmission(
            text: text, images: attachments, context: pendingContext, template: templatePreset)
        attachments = []
        pendingContext = []
        templatePreset = nil
        return await submit(submission)
    }

    /// Sends `submission` (a message, `/retry` or `/edit`) through `ChatSession.submit`, answering at the prompt the
    /// decisions it raises; what is not sent comes back (`returnToLine`). Returns an exit status after SIGTERM/SIGHUP.
    func submit(_ submission: TurnSubmission) async -> Int32? {
        var submission = submission
        // The answer to `/system`'s offer: accepted, this turn starts a fresh context; declined, the new prompt waits
        // (no question at each message). Otherwise the engine says when the turn needs one.
        if submission.serverContext == nil { submission.serverContext = takeServerContextAnswer() }
        while true {
            let preset = pendingPreset
            let id: String
            let opened: OpenedConversation?
            do { (id, opened) = try await conversationForTurn() } catch {
                context.warn(App.explanation(of: error, context: context))
                await returnToLine(submission)
                return nil
            }
            let modelName = effectiveModel(conversation: await currentConversation())?.reference ?? ""
            let progress = ModelSwitch.reporter(repl: self)
            let turn = submission
            let router = router
            let result = await stream(conversationId: id, modelName: modelName) { chat, display in
                let outcome = await chat.submit(
                    turn, in: id, opened: opened,
                    progress: { step in
                        if case .model(let step) = step { await progress(step) }
                    },
                    stopReason: { StopReason.signal(router.replyStopSignal) }
                ) { await display.show($0) }
                guard let reply = outcome.reply else { throw TurnNotSent(outcome: outcome) }
                return reply
            }
            guard case .notSent(let outcome) = result else {
                // A model reloaded with its context grown: the prompt after the reply shows the new limit, not the
                // one the models were last listed with.
                if submission.overflowChoice == .grow { await refreshModels() }
                return result.exitStatus
            }
            if opened?.isNew == true {
                // The engine removed the conversation it was made for: the next try makes it again, with the same choices.
                conversationId = nil
                pendingPreset = preset
            }
            switch outcome {
            case .needsDecision(let decision, _):
                guard let answered = await answer(decision, for: submission) else {
                    noteFailure(ExitCode.failure)
                    await returnToLine(submission)
                    return nil
                }
                submission = answered
            case .refused(let error, _), .failed(let error, _):
                context.warn(App.explanation(of: error, context: context))
                if case ChatError.branchMovedOn = error { await showLastMessage(of: id) }
                noteFailure(App.exitCode(for: error))
                await returnToLine(submission)
                return nil
            case .sent, .cancelled:
                return nil
            }
        }
    }

    /// Says which message is the conversation's last now, which another process sent and this REPL never showed, so
    /// the next `/retry` or `/edit` is not a guess.
    private func showLastMessage(of conversationId: String) async {
        guard let last = try? await chat.lastUserMessage(in: conversationId) else { return }
        let text = textFit.cut(UntrustedText.oneLine(last.text), to: max(terminalWidth - 30, 20))
        output.line("The last message now: \(text) (/show shows the conversation).")
    }

    /// Asks the user `decision`; returns `submission` with the answer, or nil when the answer is not to send it.
    private func answer(_ decision: TurnDecision, for submission: TurnSubmission) async -> TurnSubmission? {
        var answered = submission
        switch decision {
        case .chooseModel:
            // Nothing loaded and nothing chosen (LM Studio's usual state): offer the picker, as `lms chat` does.
            output.line("No model is chosen for this conversation yet; pick one and the message is sent to it.")
            do {
                guard let picked = try await ModelSwitch.pick(repl: self) else { return nil }
                try await ModelSwitch.choose(picked, repl: self)
            } catch {
                context.warn(App.explanation(of: error, context: context))
                return nil
            }
        case .overflow(let overflow):
            context.errors.wrappedLine("\(decision)", indent: 2)
            let offers = overflow.choices.map { choice -> String in
                switch choice {
                case .grow:
                    "g: reload \(UntrustedText.oneLine(overflow.model)) with its context grown to \(ContextMeter.compact(overflow.growTo ?? 0))"
                case .recap:
                    "r: a fresh context with a recap, \(UntrustedText.sanitize(overflow.recap?.summary ?? ""))"
                case .send: "s: send it anyway"
                }
            }
            // Offers apart by semicolons: a recap's summary has commas of its own.
            let picked = await choose(
                offers.joined(separator: "; ") + "; N: not now", choices: overflow.choices.map(\.rawValue) + ["no"],
                defaultChoice: "no",
                takenAs: "not now")
            guard let choice = OverflowChoice(rawValue: picked) else {
                if !overflow.items.isEmpty { output.line("/context drop N or /context clear removes items.") }
                return nil
            }
            answered.overflowChoice = choice
        case .freshContext(let reason, let recap):
            context.warn(reason.description)
            guard let choice = await askFreshContext(recap: recap) else { return nil }
            answered.serverContext = choice
        }
        return answered
    }

    /// Asks whether to go on with a fresh server context, empty or (when there are earlier turns) with a recap of them;
    /// like every question, it takes only its answers (any other line counts as "not now" and is handled next).
    func askFreshContext(recap: RecapEstimate?) async -> ServerContextChoice? {
        let question =
            "Continue with a fresh server context? y: empty; "
            + (recap.map { "r: with a recap, \(UntrustedText.sanitize($0.summary)); " } ?? "")
            + "N: not now"
        switch await choose(
            question, choices: recap == nil ? ["yes", "no"] : ["yes", "recap", "no"], defaultChoice: "no",
            takenAs: "not now")
        {
        case "yes": return .empty
        case "recap": return .recap
        default: return nil
        }
    }

    /// Puts a turn that was not sent back: its text in the line (an edit as `/edit TEXT`; a retry has none), its images
    /// and items waiting again, its template chosen.
    ///
    /// It is also kept as the conversation's draft (Ctrl-D or `/open` keep it), after any text the line already had,
    /// when the conversation outlives the turn: a first message's conversation goes with it, and only the line
    /// history keeps its text.
    private func returnToLine(_ submission: TurnSubmission) async {
        if submission.kind == .retry {
            output.line("Nothing sent; /retry asks again.")
            return
        }
        // As it would be typed: a message starting with a slash goes back escaped, or Enter would run it as a command.
        let text =
            submission.kind == .edit
            ? "/edit " + submission.text
            : submission.text.hasPrefix("/") ? "/" + submission.text : submission.text
        let items =
            submission.context.isEmpty && submission.images.isEmpty ? "" : ", with its items (/context lists them)"
        output.line(
            editor?.readsPlainLines == true
                ? "Nothing sent; the message is kept\(items): Enter on an empty line sends it again."
                : "Nothing sent; the message is back in the line\(items).")
        draft = [draft, text].filter { !$0.isEmpty }.joined(separator: "\n")
        keptDraft = draft
        await saveDraft(keptDraft)
        attachments = submission.images + attachments
        pendingContext = submission.context + pendingContext
        templatePreset = submission.template
    }

    /// How a streamed command ended: with the REPL's exit status (nil: go on), or with a turn that was not sent.
    enum StreamResult {
        case done(Int32?)
        case notSent(TurnOutcome)

        /// The exit status; nil for a turn not sent.
        var exitStatus: Int32? {
            if case .done(let status) = self { return status }
            return nil
        }
    }

    /// Streams a reply made by `body`; handles Ctrl-C, SIGTERM/SIGHUP and window changes.
    ///
    /// A body that throws `TurnNotSent` ends as `.notSent` with its outcome, for the caller to act on.
    @discardableResult
    func stream(
        conversationId id: String, modelName: String,
        _ body: @escaping @Sendable (ChatSession, ReplyDisplay) async throws -> SavedReply
    ) async -> StreamResult {
        if editor == nil, answeredBefore { output.line("") }
        answeredBefore = true
        let display = ReplyDisplay.forCommandLine(context: context, modelName: modelName)
        let chat = chat
        let environment = context.environment
        let started = ContinuousClock.now
        let work = Task { try await body(chat, display) }
        let terminal = editor?.beginReply()
        let (outcome, signal) = await router.streaming(work) {
            let capabilities = TerminalCapabilities.detect(fd: 1, environment: environment)
            Task { await display.resize(width: capabilities.width, height: capabilities.height) }
        }
        editor?.endReply(terminal)
        followsReply = true
        if let signal {
            // SIGTERM or SIGHUP ends the REPL; a message that was not sent stays as the conversation's draft.
            let unsent =
                if case .failure(let notSent as TurnNotSent) = outcome { notSent.outcome.returned?.text } else {
                    String?.none
                }
            // `saveDraft` takes the line's text: the message goes as the line that sends it, and what was typed
            // during the reply, which no prompt will show, after it.
            let typed = editor?.takeTypedAheadText() ?? ""
            let kept = [unsent.map(DraftText.line(fromMessage:)) ?? "", typed].filter { !$0.isEmpty }
            // With nothing of this turn to keep, a draft an earlier Ctrl-C set aside stays.
            await saveDraft(kept.isEmpty ? keptDraft : kept.joined(separator: "\n"))
            return .done(SignalTrap.exitStatus(for: signal))
        }
        do {
            let saved = try outcome.get()
            if saved.status != .complete { noteFailure(ExitCode.incompleteReply) }
            if saved.status != .complete, let message = saved.errorMessage, !work.isCancelled,
                !statsLineShowsWhole(message, of: saved)
            {
                context.warn(message)
            }
            if let instance = saved.state.modelInstanceId,
                serverModels?.contains(where: { $0.loadedInstances.contains { $0.id == instance } }) != true
            {
                // The server loaded the model just in time: the prompt below must show it loaded, with its context.
                await refreshModels()
            }
            if let notice = saved.stopNotice { context.errors.wrappedLine("\(notice)", indent: 2) }
            if saved.streamedVersionId != nil {
                context.errors.wrappedLine(
                    "The server's final reply replaced what streamed; the streamed version is kept as an alternative (/alt lists it).",
                    indent: 2)
            }
            if saved.state.reasoningCharacterCount > 0, !toldAboutReasoning, editor != nil {
                toldAboutReasoning = true
                let capabilities = context.terminal(fd: 1)
                let hint =
                    "The reasoning is folded into the \(capabilities.isUTF8 ? "▸" : ">") line; /show reasoning opens it."
                output.line(styled: capabilities.allowsStyles ? "\u{1B}[2m" + hint + "\u{1B}[0m" : hint)
            }
            await afterReply(saved, elapsed: ContinuousClock.now - started)
        } catch let notSent as TurnNotSent {
            return .notSent(notSent.outcome)
        } catch {
            context.warn(App.explanation(of: error, context: context))
        }
        return .done(nil)
    }

    /// Records a turn that did not end complete, for the exit status of a piped REPL (see `pipedStatus`).
    private func noteFailure(_ status: Int32) {
        if pipedStatus == ExitCode.success
            || pipedStatus == ExitCode.incompleteReply && status != ExitCode.incompleteReply
        {
            pipedStatus = status
        }
    }

    /// Whether the reply's stats line (drawn by `ReplyDisplay` on a terminal) already shows `message` whole as its
    /// "⚠ incomplete" mark, so the failure is reported once; a cancelled reply's mark says it all.
    private func statsLineShowsWhole(_ message: String, of saved: SavedReply) -> Bool {
        let output = context.terminal(fd: 1)
        let errors = context.terminal(fd: 2)
        guard output.isTTY, errors.allowsCursorMovement || output.isLineMode && errors.isLineMode else { return false }
        // Unreadable events explain more than the mark's reason says.
        guard saved.state.firstUnreadableEvent == nil,
            saved.state.serverError.map({ $0 == message }) ?? true
        else { return false }
        let stats = saved.state.stats.map(ReplyStats.init)
        let outcome: ReplyOutcome = saved.state.serverError == nil ? .failed(message) : .error(message)
        return ReplyPresenter(capabilities: output).showsWholeMark(stats, outcome: outcome)
    }

    /// Titles a new conversation with the summarizer and notifies about a long reply.
    private func afterReply(_ saved: SavedReply, elapsed: Duration) async {
        if saved.status == .complete { await chat.titleFirstReply(conversationId: saved.conversationId) }
        // A terminal that reports its focus and has it: the user is watching, no notification.
        if let threshold = context.configuration.notifyAfterSeconds, elapsed.seconds >= threshold,
            TerminalFocus.shared.isFocused != true
        {
            ReplyNotification.post(
                model: saved.state.modelInstanceId ?? "llmster", text: saved.state.answer,
                environment: context.environment)
        }
    }
}
