import Chat
import Foundation
import LMStudio
import Library
import Markdown
import SystemSupport
import TerminalMarkdown

/// One REPL run: the current conversation, the prompt, sending, and the slash commands' shared state.
///
/// Isolated to `ReplActor`; the readline thread sees only `CompletionData`.
@ReplActor final class ReplSession {
    /// Settings and streams (the `theme` setting resolved from the terminal's answer at start-up, when it answers).
    private(set) var context: CommandContext
    /// The engine and library.
    let chat: ChatSession
    /// Readline, when standard input and output are a terminal (plain lines on a line-mode front end).
    let editor: LineEditor?
    /// Where signals go.
    let router: SignalRouter
    /// What Tab offers.
    let completions = CompletionData()
    /// The conversation in use; nil until the first message (or `/open`).
    var conversationId: String?
    /// A model chosen with `/model` before the conversation exists.
    var pendingModel: String?
    /// A preset chosen (`--preset`, `/preset`) before the conversation exists; applied when it is created.
    var pendingPreset: String?
    /// The preset whose template (`preset.NAME.template`) the next message fills, chosen with `/preset`; one message takes it.
    var templatePreset: Preset?
    /// The server's models as last fetched; nil when the server could not be reached. The prompt reads only this.
    var serverModels: [Model]?
    /// Whether a background refresh is running.
    private var refreshing = false
    /// Whether something changed while a refresh was running, so another must follow it.
    private var refreshAgain = false
    /// The answer to the offer of a fresh server context after the system prompt changed (`SystemPromptCommand`):
    /// `.empty`, accepted, for the next turn only; `.keep`, declined, for this conversation (the new prompt waits, and
    /// no turn asks again); nil, not asked: the engine asks when a turn needs one.
    var serverContextAnswer: ServerContextChoice?
    /// Whether the conversation switched to has a system prompt that waits for a fresh server context: the offer
    /// (`SystemPromptCommand.offerFreshContext`) comes before the next prompt, after what opened it is said.
    var offersFreshContext = false
    /// The answer the next turn is sent with; an accepted fresh context is taken by one turn.
    func takeServerContextAnswer() -> ServerContextChoice? {
        defer { if serverContextAnswer == .empty { serverContextAnswer = nil } }
        return serverContextAnswer
    }

    /// Whether a reply was shown since the last prompt (the next prompt is set apart from it).
    var followsReply = false
    /// Whether a reply was shown at all: with input piped, a blank line sets the next one apart.
    private var answeredBefore = false
    /// With input piped, the exit status of the worst turn: a message not sent (1, or its failure's category's status)
    /// over an incomplete reply (6, as `ask`), the first of each; 0 while every reply was complete.
    private var pipedStatus = ExitCode.success
    /// Whether the hint that `/show reasoning` opens a folded reasoning was given in this session.
    private var toldAboutReasoning = false
    /// Whether `/voice` reads answers aloud (`/set speak on`).
    var speaksAnswers = false
    /// Images `/attach` added for the next message.
    var attachments: [ImageInput] = []
    /// Files, pages and command output `/file`, `/url` and `/run` added for the next message.
    var pendingContext: [ContextItem] = []
    /// Lines of a message still being typed.
    var assembler = InputAssembler()
    /// Lines a question did not take as its answer, oldest first: the loop handles them next, as typed (`nextLine`).
    var pendingLines: [(text: String, pasted: Bool)] = []
    /// What the next prompt starts with.
    var draft = ""
    /// Unsent input kept for the current conversation (after Ctrl-C, or restored when returning to it).
    var keptDraft = ""
    /// Set when the REPL must end (`/quit`, or a signal during a command's reply).
    var exitStatus: Int32?
    /// Standard output.
    var output: StandardStream { context.output }
    /// The width command output is laid out to: the terminal's, or 80 columns when output is not a terminal.
    var terminalWidth: Int {
        let capabilities = TerminalCapabilities.detect(fd: 1, environment: context.environment)
        return capabilities.isTTY ? max(capabilities.width, 20) : 80
    }
    /// How command output is measured and cut: the terminal's `width_mode` and ellipsis.
    var textFit: TextFit { context.terminal(fd: 1).textFit }

    /// Creates the REPL: readline when both standard input and output are terminals, plain lines otherwise.
    init(context: CommandContext, chat: ChatSession) {
        self.context = context
        self.chat = chat
        let interactive = isatty(0) == 1 && isatty(1) == 1
        let lineMode = TerminalCapabilities.detect(fd: 1, environment: context.environment).isLineMode
        let completions = completions
        editor =
            interactive
            ? LineEditor(
                history: HistoryFile(path: context.paths.historyFile), environment: context.environment,
                lineMode: lineMode, completer: { completions.complete($0) }, describer: { completions.badges(for: $0) })
            : nil
        router = SignalRouter(editor: editor)
    }

    /// The loop: read, run a command or send a message, until `/quit`, Ctrl-D or a signal.
    func run() async -> Int32 {
        let router = router
        let trap = SignalTrap([SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGTSTP]) { router.receive($0) }
        defer { trap.remove() }
        defer { editor?.restoreTerminal() }
        let reportsFocus =
            editor != nil && TerminalCapabilities.detect(fd: 1, environment: context.environment).allowsCursorMovement
        if reportsFocus { TerminalFocus.shared.setReporting(true) }
        defer { if reportsFocus { TerminalFocus.shared.setReporting(false) } }
        if editor != nil {
            output.line(
                SanitizedMessage(
                    untrusted: TextLayout.wrap(
                        "llmster \(App.version) — type a message, or /help. Ctrl-D quits.", width: terminalWidth,
                        fit: textFit
                    )
                    .joined(separator: "\n")))
        }
        let probe = terminalProbe()
        await refreshModels(reportingFailure: true)
        if let probe {
            let answers = await probe.value
            if let background = answers.background { context.configuration.theme = background.rawValue }
            if let model = answers.widthModel {
                context.measuredWidthModel = model
                MeasuredWidths.record(model, paths: context.paths, environment: context.environment)
            }
            // Mostly typed before the terminal left its normal mode, where Enter became a line feed.
            editor?.typedAhead.withLock { $0 = LineEditor.asTyped(answers.typed) + $0 }
        }
        await refreshLibraryCompletions()
        completions.update(presets: chat.presets.map(\.name))
        completions.update(aliases: chat.configuration.aliases.keys.sorted())
        completions.update(servers: chat.configuration.servers.keys.sorted())
        if let preset = context.preset { await runCommand("/preset " + preset) }
        while exitStatus == nil {
            if followsReply, editor != nil, !assembler.isContinuing {
                // A blank row between one turn and the next prompt, so turns stand apart in the scrollback.
                output.line("")
            }
            followsReply = false
            if offersFreshContext { await SystemPromptCommand.offerFreshContext(after: nil, repl: self) }
            let prompt = await promptText()
            let given = draft
            draft = ""
            let input = await nextLine(prompt: prompt, draft: given)
            switch input {
            case .endOfInput:
                await leave(draft: joinDraft(keptDraft))
                return editor == nil ? pipedStatus : ExitCode.success
            case .terminated(let text, let signal):
                await leave(draft: joinDraft(text))
                return SignalTrap.exitStatus(for: signal)
            case .interrupted(let text):
                keptDraft = joinDraft(text)
                assembler.reset()
                await saveDraft(keptDraft)
            case .line(var line):
                if editor?.readsPlainLines == true, !given.isEmpty {
                    // Line mode cannot put a draft in the line: Enter alone sends it, and a command keeps it.
                    if line.isEmpty { line = given } else if line.hasPrefix("/") { draft = given }
                }
                if let command = commandTyped(after: given, in: line) {
                    // The line held a draft the user typed a command after: the command runs, the draft stays.
                    editor?.remember(command)
                    draft = given
                    await runCommand(command)
                    await refreshLibraryCompletions()
                    continue
                }
                editor?.remember(line)
                guard let message = assembler.add(line) else { continue }
                if let status = await handle(message) { return status }
                await refreshLibraryCompletions()
                refreshInBackground()
            }
        }
        await leave(draft: joinDraft(keptDraft))
        return exitStatus ?? ExitCode.success
    }

    /// The slash command typed right after `given` (the text the line was given), when `line` is that: a restored
    /// draft must not turn `/delete` typed after it into part of a message.
    private func commandTyped(after given: String, in line: String) -> String? {
        guard !given.isEmpty, line.count > given.count, line.hasPrefix(given) else { return nil }
        let typed = String(line.dropFirst(given.count)).trimmingCharacters(in: .whitespaces)
        guard typed.hasPrefix("/"), !typed.hasPrefix("//") else { return nil }
        if case .unknown = SlashLine.parse(typed, commands: ReplCommands.all) { return nil }
        return typed
    }

    /// Asks the terminal what nothing else says (`TerminalQuery`) while the server is asked for its models, on a full
    /// terminal outside Emacs (not the Linux console, which reads `ESC ]` as its palette commands): its background
    /// when `theme` is `auto` and `COLORFGBG` is unset or unreadable, how it counts emoji columns when `width_mode`
    /// is `auto`.
    private func terminalProbe() -> Task<TerminalAnswers, Never>? {
        guard let editor, !editor.readsPlainLines, context.environment["TERM"] != "linux",
            context.terminal(fd: 1).allowsOperatingSystemCommands
        else { return nil }
        let background =
            context.configuration.theme == "auto"
            && TerminalBackground(readingColorFgBg: context.environment["COLORFGBG"]) == nil
        let widths = context.configuration.widthMode == "auto"
        guard background || widths else { return nil }
        // Over SSH the answer takes a round trip: a longer bound, so a late one does not land in the line as keys.
        let remote = context.environment["SSH_CONNECTION"] != nil || context.environment["SSH_TTY"] != nil
        let timeout: Int32 = remote ? 1000 : 300
        return Task {
            await BlockingThread.run("llmster-terminal-query") {
                TerminalQuery.ask(
                    input: 0, output: 1, background: background, widths: widths, timeoutMilliseconds: timeout)
            }
        }
    }

    /// Keeps unsent input as the conversation's draft on the way out, or removes the conversation when nothing
    /// at all is in it (`/new` and quit).
    private func leave(draft: String) async {
        await saveDraft(draft)
        if let conversationId { _ = try? await chat.discardIfEmpty(conversationId) }
    }

    private func joinDraft(_ text: String) -> String {
        [assembler.pending, text].filter { !$0.isEmpty }.joined(separator: "\n")
    }

    /// Runs a command or sends a message; returns an exit status when the REPL must end.
    private func handle(_ message: String) async -> Int32? {
        let trimmed = message.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        if trimmed.hasPrefix("/"), !trimmed.hasPrefix("//") {
            await runCommand(trimmed)
            return nil
        }
        return await send(trimmed.hasPrefix("//") ? String(trimmed.dropFirst()) : message)
    }

    /// Parses and runs a slash command; unknown names and bad arguments print a usage line.
    func runCommand(_ line: String) async {
        // Keys typed meanwhile are not echoed into the command's output; they wait for the next prompt.
        let terminal = editor?.beginReply()
        defer { editor?.endReply(terminal) }
        switch SlashLine.parse(line, commands: ReplCommands.all) {
        case .unknown(let name, let suggestion):
            context.errors.wrappedLine(
                "unknown command /\(UntrustedText.sanitize(name))"
                    + (suggestion.map { " (did you mean /\($0)?)" } ?? "") + "; /help lists them", indent: 2)
        case .badArguments(let command, let message):
            usage(command, message)
        case .command(let command, let arguments):
            do {
                try await command.run(arguments, self)
            } catch let error as UsageError {
                usage(command, error.description)
            } catch {
                let explanation = UntrustedText.sanitize(
                    ServerURL.redactingPasswords(in: App.explanation(of: error, context: context)))
                context.errors.wrappedLine("/\(command.name): \(explanation)", indent: 2)
            }
        }
    }

    /// Prints `/COMMAND: message` and the command's usage line, wrapped to the terminal.
    private func usage(_ command: SlashCommand, _ message: String) {
        context.errors.wrappedLine("/\(command.name): \(message)", indent: 2)
        context.errors.wrappedLine(SanitizedMessage(untrusted: command.usageLine), indent: 4)
    }

    // MARK: The prompt

    /// The conversation's model and state, the context estimate, folder and title; then `›`.
    ///
    /// Rendered from the cached model list (`serverModels`) and the library's record of this one
    /// conversation: no server request, so a server that drops connections cannot stall the prompt.
    func promptText() async -> String {
        if assembler.isContinuing { return "… " }
        guard editor != nil else { return "" }
        let conversation = await currentConversation()
        let effective = effectiveModel(conversation: conversation)
        completions.update(reasoningOptions: effective?.model?.reasoningSuggestions(in: serverModels ?? []) ?? [])
        var parts: [String] = []
        if let effective {
            parts.append("\(UntrustedText.sanitize(effective.reference)) (\(effective.state.rawValue))")
        } else {
            parts.append("no model")
        }
        let meter = await contextMeter(conversation: conversation, model: effective)
        parts.append(meter.label(draft: ContextItem.input(pendingContext, message: "")))
        if !pendingContext.isEmpty { parts.append("+\(pendingContext.count) context") }
        if !attachments.isEmpty { parts.append("+\(attachments.count) image\(attachments.count == 1 ? "" : "s")") }
        if let conversation {
            let folder = await folderPath(conversation.folderId)
            // One `/new` made reads as the chat llmster starts with, until it has a title or a reply.
            let title =
                conversation.title.isEmpty && conversation.lastResponseId == nil
                ? "new chat" : conversation.displayTitle
            parts.append(UntrustedText.oneLine((folder.map { $0 + "/" } ?? "") + title))
        } else {
            parts.append("new chat")
        }
        let capabilities = context.terminal(fd: 1)
        let width = capabilities.isTTY ? max(capabilities.width, 20) : 80
        let info = capabilities.textFit.cut(parts.joined(separator: " · "), to: width - 3)
        if capabilities.noColor || !capabilities.allowsStyles { return "[\(info)]\n› " }
        return "\u{1}\u{1B}[2m\u{2}[\(info)]\u{1}\u{1B}[0m\u{2}\n› "
    }

    /// The conversation's model by the one rule (`EffectiveModel`), against the cached model list.
    func effectiveModel(conversation: Conversation?) -> EffectiveModel? {
        EffectiveModel.resolve(
            conversation: conversation, pending: pendingModel,
            defaultModel: context.configuration.defaultModelKey, models: serverModels)
    }

    /// The effective model of the current conversation (see `effectiveModel(conversation:)`).
    func effectiveModel() async -> EffectiveModel? {
        effectiveModel(conversation: await currentConversation())
    }

    /// Asks the server for its models now (after a command that changed them) and updates the cache and Tab
    /// completion; with `reportingFailure` (at start-up) an unreachable or refusing server is
    /// said at once, with what to do, rather than after the first message.
    func refreshModels(reportingFailure: Bool = false) async {
        do {
            serverModels = try await chat.models(refresh: true)
        } catch {
            serverModels = nil
            if reportingFailure { context.warn(App.explanation(of: error, context: context)) }
        }
        if let serverModels { completions.update(models: serverModels) }
    }

    /// Refreshes the model list in the background after a reply or a command; a change while a refresh runs
    /// queues one more.
    func refreshInBackground() {
        guard !refreshing else {
            refreshAgain = true
            return
        }
        refreshing = true
        Task {
            await refreshModels()
            refreshing = false
            if refreshAgain {
                refreshAgain = false
                refreshInBackground()
            }
        }
    }

    /// Offers the library's current folders and conversation titles to Tab (after every command or message, since
    /// any of them may have changed).
    func refreshLibraryCompletions() async {
        guard editor != nil,
            let (folders, titles) = try? await chat.withLibrary({ library in
                (
                    try library.folderPaths().values.sorted(),
                    try library.conversations(limit: 200).map(\.title).filter { !$0.isEmpty }
                )
            })
        else { return }
        completions.update(folders: folders, titles: titles)
    }

    /// The context estimate for `conversation` with `model` (`ChatSession.contextMeter`).
    func contextMeter(conversation: Conversation?, model: EffectiveModel?) async -> ContextMeter {
        (try? await chat.contextMeter(conversation: conversation, model: model))
            ?? ContextMeter(usedTokens: 0, contextLength: nil)
    }

    /// The current conversation, fresh from the library.
    func currentConversation() async -> Conversation? {
        guard let id = conversationId else { return nil }
        return try? await chat.withLibrary { try $0.conversation(id: id) }
    }

    /// `Work/Research` for a folder id.
    func folderPath(_ id: Int64?) async -> String? {
        guard let id else { return nil }
        return try? await chat.withLibrary { try $0.folderPath(id: id) }
    }

    // MARK: Sending

    /// The conversation to send on, created (with the `/model` and `/preset` choices) through
    /// `ChatSession.openConversation` when there is none yet.
    func ensureConversation() async throws -> String {
        if let conversationId { return conversationId }
        let overrides = ConversationOverrides(model: pendingModel, preset: pendingPreset)
        let id = try await chat.openConversation(.new, overrides: overrides).conversation.id
        conversationId = id
        pendingPreset = nil
        return id
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
        if !keptDraft.isEmpty {
            keptDraft = ""
            await saveDraft("")
        }
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
            let createdForTurn = conversationId == nil
            let preset = pendingPreset
            let id: String
            do { id = try await ensureConversation() } catch {
                context.warn(App.explanation(of: error, context: context))
                await returnToLine(submission)
                return nil
            }
            let modelName = effectiveModel(conversation: await currentConversation())?.reference ?? ""
            let progress = ModelSwitch.reporter(repl: self)
            let turn = submission
            let result = await stream(conversationId: id, modelName: modelName) { chat, display in
                let outcome = await chat.submit(
                    turn, in: id, createdForTurn: createdForTurn,
                    progress: { step in
                        if case .model(let step) = step { await progress(step) }
                    }
                ) { await display.show($0) }
                guard let reply = outcome.reply else { throw TurnNotSent(outcome: outcome) }
                return reply
            }
            guard case .notSent(let outcome) = result else { return result.exitStatus }
            if createdForTurn {
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
                noteFailure(App.exitCode(for: error))
                await returnToLine(submission)
                return nil
            case .sent, .cancelled:
                return nil
            }
        }
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
                    "g: reload \(UntrustedText.oneLine(overflow.model)) with a \(ContextMeter.compact(overflow.growTo ?? 0)) context"
                case .recap:
                    "r: a fresh context with a recap (\(UntrustedText.sanitize(overflow.recap?.summary ?? "")))"
                case .send: "s: send it anyway"
                }
            }
            let picked = await choose(
                offers.joined(separator: ", ") + ", N: not now", choices: overflow.choices.map(\.rawValue) + ["no"],
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
            "Continue with a fresh server context? y: empty"
            + (recap.map { ", r: with a recap of the earlier turns (\(UntrustedText.sanitize($0.summary)))" } ?? "")
            + ", N: not now"
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
    /// It is also kept as the conversation's draft (Ctrl-D or `/open` keep it), after any text the line already had.
    private func returnToLine(_ submission: TurnSubmission) async {
        if submission.kind == .retry {
            output.line("Nothing sent; /retry asks again.")
            return
        }
        let text = submission.kind == .edit ? "/edit " + submission.text : submission.text
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
            await saveDraft(unsent ?? "")
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
            saved.state.errors.first.map({ LMStudioError.describe(streamError: $0) == message }) ?? true
        else { return false }
        let stats = saved.state.stats.map(ReplyStats.init)
        return ReplyPresenter(capabilities: output).showsWholeMark(stats, outcome: .failed(message))
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

    /// Keeps unsent input on the current conversation (only when there is one).
    func saveDraft(_ text: String) async {
        guard let id = conversationId else { return }
        try? await chat.withLibrary { try $0.setDraft(conversationId: id, text: text) }
    }

    /// Switches to conversation `id`, saving the draft of the one left and putting the new one's in the line.
    func switchTo(_ id: String?) async {
        await saveDraft(keptDraft)
        if let left = conversationId, left != id { _ = try? await chat.discardIfEmpty(left) }
        conversationId = id
        attachments = []
        pendingContext = []
        pendingModel = nil
        pendingPreset = nil
        serverContextAnswer = nil
        let conversation = await currentConversation()
        offersFreshContext = conversation?.systemPromptAwaitsFreshContext ?? false
        keptDraft = conversation?.draft ?? ""
        draft = keptDraft
        if !keptDraft.isEmpty {
            output.line(
                editor?.readsPlainLines == true
                    ? "This conversation has an unsent draft: Enter on an empty line sends it, any other message replaces it."
                    : "Your unsent draft is back in the line below: Enter sends it, Ctrl-U clears it; a /command typed after it runs and keeps it."
            )
        }
        await followServer()
    }

    /// Moves to the server profile the current conversation was held on (see `ChatSession.followServer`), saying so;
    /// when it cannot, the next message says why.
    func followServer() async {
        guard let conversation = await currentConversation(),
            let profile = try? await chat.followServer(of: conversation)
        else { return }
        output.line(
            "Server: \(profile) (\(UntrustedText.sanitize(ServerURL.redactingPasswords(in: chat.configuration.server)))), where this conversation was held."
        )
        await refreshModels(reportingFailure: true)
    }
}

/// Thrown by a streamed body whose turn was not sent, carrying the engine's outcome out of the reply's task.
struct TurnNotSent: Error {
    let outcome: TurnOutcome
}
