import Chat
import Foundation
import LMStudio
import Library
import Markdown
import SystemSupport
import TerminalMarkdown

/// One REPL run: the current conversation and the slash commands' shared state, and the read loop that hands each
/// line to a slash command or to the sender.
///
/// The prompt (`ReplSession+Prompt`), sending (`ReplSession+Sender`) and questions (`ReplSession+Questions`) are
/// extensions in files of their own. Isolated to `ReplActor`; the readline thread sees only `CompletionData`.
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
    /// Why the last fetch of the models failed (nil when it did not): the prompt says a rejected token rather than
    /// an unreachable server.
    var modelsFailure: ErrorCategory?
    /// Whether a background refresh is running.
    var refreshing = false
    /// Whether something changed while a refresh was running, so another must follow it.
    var refreshAgain = false
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
    var answeredBefore = false
    /// With input piped, the exit status of the worst turn: a message not sent (1, or its failure's category's status)
    /// over an incomplete reply (6, as `ask`), the first of each; 0 while every reply was complete.
    var pipedStatus = ExitCode.success
    /// Whether the hint that `/show reasoning` opens a folded reasoning was given in this session.
    var toldAboutReasoning = false
    /// Whether `/voice` reads answers aloud (`/set speak on`).
    var speaksAnswers = false
    /// Images `/attach` added for the next message.
    var attachments: [ImageInput] = []
    /// Files, pages and command output `/file`, `/url` and `/run` added for the next message.
    var pendingContext: [ContextItem] = []
    /// Lines of a message still being typed.
    var assembler = InputAssembler()
    /// Lines a question did not take as its answer, oldest first: the loop handles them next, as typed (`nextLine`).
    var pendingLines: [(text: String, pasted: Bool, typedAhead: Bool)] = []
    /// What the next prompt starts with.
    var draft = ""
    /// Unsent input kept for the current conversation (after Ctrl-C, or restored when returning to it).
    var keptDraft = ""
    /// The current conversation's draft as this REPL last loaded or saved it (the message, not the line).
    var shownDraft = ""
    /// The id of the conversation's last user message when the prompt was last shown: `/retry` and `/edit` name it,
    /// so a message another process sent since (which this REPL never showed) is not the one asked again or replaced.
    var shownLastMessageId: String?
    /// Whether the next prompt shows a draft the conversation kept, which llmster says just before it.
    var announcesDraft = false
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
            if announcesDraft {
                announcesDraft = false
                if !draft.isEmpty {
                    output.line(
                        editor?.readsPlainLines == true
                            ? "This conversation has an unsent draft: Enter on an empty line sends it, any other message replaces it."
                            : "Your unsent draft is back in the line below: Enter sends it, Ctrl-U clears it; a /command typed after it runs and keeps it."
                    )
                }
            }
            let prompt = await promptText()
            shownLastMessageId = await lastMessageId()
            let given = draft
            draft = ""
            let input = await nextLine(prompt: prompt, draft: given)
            switch input {
            case .endOfInput:
                // Ctrl-D on a line the user emptied of its draft: the draft went with the text.
                if emptiedDraft(given) { keptDraft = "" }
                await leave(draft: joinDraft(keptDraft))
                return editor == nil ? pipedStatus : ExitCode.success
            case .terminated(let text, let signal):
                // An empty line keeps the draft an earlier Ctrl-C kept, unless the user emptied it of that draft.
                await leave(draft: joinDraft(text.isEmpty && given.isEmpty ? keptDraft : text))
                return SignalTrap.exitStatus(for: signal)
            case .interrupted(let text):
                keptDraft = joinDraft(text)
                assembler.reset()
                await saveDraft(keptDraft)
            case .line(var line):
                if editor?.readsPlainLines != true, !given.isEmpty, !line.hasPrefix(given) {
                    // The user took the draft out of the line (Ctrl-U, or other text in its place): it is not kept.
                    keptDraft = ""
                    await saveDraft("")
                }
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
                if !given.isEmpty, draft.isEmpty, !keptDraft.isEmpty {
                    // The draft was in the line: it goes with this message, or this message replaced it (a command,
                    // which keeps it, put it back in `draft`). A draft an earlier Ctrl-C set aside, never in this
                    // line, stays for when the user returns.
                    keptDraft = ""
                    await saveDraft("")
                }
                editor?.remember(line)
                let pasted = assembler.nextLineIsPasted
                guard let message = assembler.add(line) else { continue }
                // A pasted line with its line end (as a triple-click copies it) is one line: a command runs.
                let lines = message.trimmingCharacters(in: .whitespacesAndNewlines)
                if let status = await handle(message, pastedLines: pasted && lines.contains("\n")) {
                    return status
                }
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

    /// Whether the prompt was given `given` as a draft and Ctrl-D ended it on a line the user had emptied (Ctrl-D on the
    /// untouched draft keeps it); never in line mode, whose line cannot hold a draft.
    private func emptiedDraft(_ given: String) -> Bool {
        guard let editor, !editor.readsPlainLines, !given.isEmpty else { return false }
        return !editor.lastEndOfInputKeptGivenLine
    }

    /// The id of the current conversation's last user message, nil when there is none (or the library cannot say).
    private func lastMessageId() async -> String? {
        guard let conversationId else { return nil }
        return try? await chat.lastUserMessage(in: conversationId)?.id
    }

    private func joinDraft(_ text: String) -> String {
        [assembler.pending, text].filter { !$0.isEmpty }.joined(separator: "\n")
    }

    /// Runs a command or sends a message; returns an exit status when the REPL must end. A message holding a paste of
    /// several lines is text as it stands, whatever its first line starts with (a pasted log line `/var/log/…`, or a
    /// command quoted in it), so it is sent as it is.
    private func handle(_ message: String, pastedLines: Bool) async -> Int32? {
        let trimmed = message.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        if pastedLines { return await send(message) }
        if trimmed.hasPrefix("/"), !trimmed.hasPrefix("//") {
            await runCommand(trimmed)
            return nil
        }
        return await send(DraftText.message(fromLine: message))
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
            } catch let error as UsageError where error.showsUsage {
                usage(command, error.description)
            } catch let error as UsageError {
                context.errors.wrappedLine("/\(command.name): \(error.description)", indent: 2)
            } catch {
                let explanation = UntrustedText.sanitize(
                    ServerURL.redactingPasswords(in: App.explanation(of: error, context: context)))
                context.errors.wrappedLine("/\(command.name): \(explanation)", indent: 2)
            }
        }
    }

    /// Prints `/COMMAND: message` and the command's usage line, wrapped to the terminal.
    private func usage(_ command: SlashCommand, _ message: String) {
        context.errors.usageError("/\(command.name): \(message)", usage: command.usageLine, indent: 2)
    }

    /// Keeps unsent input on the current conversation (only when there is one), as the message it would send
    /// (`DraftText`), which every face reads.
    /// The library's rule for two faces on one chat (`LibraryStore.replaceDraft`): input left as this REPL showed it,
    /// or emptied, does not undo a draft another client saved since.
    func saveDraft(_ text: String) async {
        guard let id = conversationId else { return }
        let shown = shownDraft
        // A line left as the draft filled it is that draft, blanks and all: the round trip through the line does not
        // give back blanks before a leading slash.
        let message = text == DraftText.line(fromMessage: shown) ? shown : DraftText.message(fromLine: text)
        let stored = try? await chat.withLibrary {
            try $0.replaceDraft(conversationId: id, with: message, shown: shown)
        }
        if stored == message { shownDraft = message }
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
        shownDraft = conversation?.draft ?? ""
        keptDraft = DraftText.line(fromMessage: shownDraft)
        draft = keptDraft
        // Said just before the prompt that shows it, after what the switch prints (the banner, "Opened …").
        announcesDraft = !keptDraft.isEmpty
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
