import Chat
import Foundation
import HTTP
import LMStudio
import Library
import Markdown
import TerminalMarkdown

/// `llmster ask`: one turn from the command line, the answer streamed to standard output.
package enum AskCommand {
    static let command = Command(
        "ask",
        arguments: "[PROMPT…]", exclusive: [[.continue, .chat]],
        summary: "Send one message and stream the answer to standard output.",
        details: """
            The prompt is the arguments. Piped standard input is added after them and a blank line, so
            `git diff | llmster ask "Review this diff:"` sends the instruction, then the diff; with no arguments
            standard input is the whole prompt. With `--preset NAME` whose preset has a template, the template is
            sent with {{input}} filled by the arguments and {{stdin}} by standard input. On a terminal the answer is
            rendered Markdown (keys typed meanwhile are not echoed into it, nor is Ctrl-C's ^C); piped, it is the raw
            Markdown text. Stages (model loading, prompt processing),
            the reasoning tail and tool calls go to standard error, only when it is a terminal.
            `-f PATH|GLOB|DIR|URL` (repeatable) sends files, a directory's text files (hidden and .gitignored
            entries skipped), a glob's matches, a web page's text or (`-f -`) standard input as context: each
            goes before the prompt as a block under its name and is saved with the message. A binary or non-UTF-8
            file, one over context_item_limit, items over context_message_limit together are refused with the sizes,
            and nothing is sent. A message that would fill the loaded context past context_warn_percent (90 by
            default; the last reply's input and output tokens plus the new text at about four characters a token)
            is refused with the figures unless `--on-overflow` says otherwise: `grow` reloads the model with a
            larger context (up to its maximum; the instance that served the conversation replaced) and goes on
            in the same server context when the server still has it, else with a recap; `recap` starts a fresh
            context with a recap of the earlier turns; `send` sends it as it is. Only regular files
            are read (`-f` and `--image`): a FIFO, device or socket is refused at once, never read
            (listed as skipped inside a directory or glob); pipe such input to `-f -` instead.
            The conversation's model is loaded first under the load policy (the previous chat model unloaded
            unless keep_previous_models is set).
            Exit status 0 only for a complete reply; 6 when the reply is incomplete (what arrived is saved),
            also when the reader of standard output goes away early (`| head`: "Output closed"); 130 after
            Ctrl-C and 143 after SIGTERM, with the partial reply saved, whether standard output is a terminal
            or a pipe. A message that is not sent saves nothing: with -c or --chat, its -m, --system and
            --reasoning leave the conversation as it was.
            When the server no longer knows the conversation's context, llmster says so, keeps the transcript
            and sends nothing: the same command with `--fresh-context` sends the message with a fresh server
            context; `--fresh-context=recap` starts it with a recap of the earlier turns from the library (a
            transcript when it fits the context, else a summary by summarizer_model), and says first how many
            tokens the recap costs. Without a PROMPT, `--fresh-context` answers a message an older version left
            unanswered.
            """,
        options: [
            .init(
                [.model], short: "m", value: "MODEL",
                help: "model key or alias (default: the conversation's, default_model, or the loaded model)"),
            continueOption, chatOption,
            .init(
                [.folder], value: "F",
                help: "put a new conversation in folder F (e.g. Work/Research; created if missing)"),
            .init(
                [.system], value: "TEXT",
                help: "system prompt (with -c: replaces it and starts a fresh server context)"),
            .init(
                [.file], short: "f", value: "FILE|URL", repeatable: true,
                help:
                    "send a file, directory, glob, web page or (-) standard input as context before the prompt; repeatable"
            ),
            .init(
                [.image], value: "FILE", repeatable: true,
                help: "attach an image (PNG, JPEG, WebP, GIF; vision models only); repeatable"
            ),
            .init([.reasoning], value: "VALUE", help: "reasoning setting, one of the model's allowed options"),
            .init(
                [.integration], value: "NAME", repeatable: true,
                help: "let the model use this configured integration (repeatable; `none` turns them off)"),
            .init(
                [.freshContext], value: "empty|recap", optionalValue: true, choices: ["empty", "recap"],
                help:
                    "drop the server-side context and start a fresh one (the transcript is kept); =recap starts it with a recap of the earlier turns"
            ),
            .init(
                [.onOverflow], value: "grow|recap|send|refuse", choices: ["grow", "recap", "send", "refuse"],
                help:
                    "for a message that would fill the context: reload with a larger context, start a fresh one with a recap, send anyway, or refuse (default)"
            ),
            .init([.noSave], help: "do not keep this exchange in the library")
        ]
    ) { arguments, context in
        try await run(arguments, context)
    }

    /// `-c`/`--continue[=CHAT]`: the conversation last used (opened or sent to), or (attached, kept for scripts) CHAT.
    package static let continueOption = ArgumentParser.Option(
        [.continue], short: "c", value: "CHAT", optionalValue: true,
        help: "continue the conversation last used (--continue=CHAT: the one --chat names)")
    /// `--chat CHAT`: a conversation by id, id prefix or title.
    package static let chatOption = ArgumentParser.Option(
        [.chat], value: "CHAT", help: "continue CHAT: an id, id prefix or title (exit 5 when none or several match)")

    /// The conversation `-c`, `--continue=CHAT` and `--chat CHAT` name; `.new` when none is given.
    static func reference(_ arguments: ArgumentParser.Parsed) throws(UsageError) -> ConversationReference {
        let named = [arguments.value(.chat), arguments.value(.continue)].compactMap(\.self)
        if Set(named).count > 1 { throw UsageError("--chat and --continue name different conversations; give one") }
        if let name = named.first { return .named(name) }
        if arguments.has(.chat) { throw UsageError("--chat needs a conversation (an id, id prefix or title)") }
        return arguments.has(.continue) ? .mostRecent : .new
    }

    static func run(_ arguments: ArgumentParser.Parsed, _ context: CommandContext) async throws -> Int32 {
        let reference = try reference(arguments)
        if arguments.has(.noSave), reference != .new {
            throw UsageError("--no-save starts a throwaway conversation; it cannot continue one")
        }
        let typed = arguments.positionals.joined(separator: " ")
        let sources = arguments.all(.file)
        let resend = typed.isEmpty && sources.isEmpty && arguments.has(.freshContext) && reference != .new
        var piped: String?
        if !resend, !sources.contains("-"), !StandardStream(fd: 0).isTerminal {
            // Refused as `-f -` refuses it: replacing the bytes would send and save a text the user never wrote.
            guard let text = String(validating: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) else {
                throw UsageError(
                    "standard input is not valid UTF-8 text; convert it first (for example with iconv -f latin1 -t utf-8)",
                    showsUsage: false)
            }
            if !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { piped = text }
        }
        // `--preset NAME` with a template sends the template filled in (`{{input}}`, `{{stdin}}`); an unknown preset is
        // refused when the conversation is opened.
        let preset = context.preset.flatMap { context.configuration.presets[$0] }
        let prompt = TurnSubmission(text: resend ? "" : typed, template: preset, stdin: resend ? nil : piped)
        if prompt.message.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, !resend, sources.isEmpty {
            throw UsageError(
                StandardStream(fd: 0).isTerminal
                    ? "give a prompt, or pipe one on standard input"
                    : "the prompt on standard input is empty")
        }
        var images: [ImageInput] = []
        for path in arguments.all(.image) {
            do { images.append(try ImageInput.load(path: path)) } catch { throw UsageError("\(error)") }
        }

        var context = context
        if arguments.has(.noSave) {
            context.libraryPath =
                NSTemporaryDirectory()
                + "llmster-nosave-\(getpid())-\(UInt32.random(in: 0...UInt32.max))/library.sqlite3"
        }
        defer {
            if arguments.has(.noSave) {
                try? FileManager.default.removeItem(atPath: (context.libraryPath as NSString).deletingLastPathComponent)
            }
        }
        let session = try context.session()
        let items = try await contextItems(sources, session: session, context: context)
        let opened = try await open(for: arguments, session: session, preset: context.preset)
        let conversationId = opened.conversation.id
        if !opened.enabledIntegrations.isEmpty {
            context.errors.line(
                "Note: enabled integrations (\(opened.enabledIntegrations.joined(separator: ", "))) may contact external services on the server's behalf."
            )
        }
        let recap = arguments.value(.freshContext) == "recap"
        if recap {
            let estimate = try await session.recapEstimate(conversationId: conversationId, excludingLastTurn: resend)
            context.errors.line("Recap for the fresh server context: \(estimate.summary).")
        }

        let display = ReplyDisplay.forCommandLine(context: context)
        let environment = context.environment
        let latch = SignalLatch()
        let errors = context.errors
        let reportsLoading = context.terminal(fd: 2).isTTY
        // A reader that goes away ends the reply, saved as incomplete, instead of SIGPIPE ending the process.
        signal(SIGPIPE, SIG_IGN)
        let echo = ReplyEcho()
        let work = Task { () -> TurnOutcome in
            var submission = prompt
            if resend {
                submission = .retry()
            } else {
                submission.images = images
                submission.context = items
            }
            if arguments.has(.freshContext) { submission.serverContext = recap ? .recap : .empty }
            submission.overflowChoice = arguments.value(.onOverflow).flatMap(OverflowChoice.init(rawValue:))
            submission.changedPromptStartsFresh = true
            return await session.submit(
                submission, in: conversationId, opened: opened,
                progress: { step in
                    switch step {
                    case .model(let step):
                        if reportsLoading {
                            errors.line(SanitizedMessage(untrusted: LoadOptionArguments.line(for: step)))
                        }
                    case .startsFreshContext:
                        errors.line(
                            "Note: the new system prompt takes effect with a fresh server context; this message starts one (the model will not remember earlier turns)."
                        )
                    }
                }, stopReason: { StopReason.signal(latch.signal) }
            ) { await display.show($0) }
        }
        let trap = SignalTrap([SIGINT, SIGTERM, SIGHUP, SIGWINCH]) { signal in
            guard signal != SIGWINCH else {
                let size = TerminalCapabilities.detect(fd: 1, environment: environment)
                Task { await display.resize(width: size.width, height: size.height) }
                return
            }
            latch.record(signal)
            work.cancel()
        }
        defer { trap.remove() }
        // Ctrl-C on `ask | cat` kills the reader too, and the signal is what the user did: the terminal sent it to both
        // before the reader could close the pipe, so it is taken before the closed output is recorded.
        let watch = OutputClosedWatch(fd: 1) {
            trap.takePending()
            latch.record(SIGPIPE)
            work.cancel()
        }
        defer { watch?.stop() }
        defer { echo.restore() }
        let outcome = await work.value
        // A signal wins over whatever it interrupted: Ctrl-C before the server answered cancels the request, and one
        // that came as the reply ended is taken here rather than lost when the trap goes. A closed output (recorded
        // as SIGPIPE) is an incomplete reply, saved with its reason.
        trap.takePending()
        if let signal = latch.signal, signal != SIGPIPE {
            if let notice = outcome.reply?.stopNotice { context.errors.wrappedLine("\(notice)", indent: 2) }
            return SignalTrap.exitStatus(for: signal)
        }
        let saved: SavedReply
        switch outcome {
        case .sent(let reply), .cancelled(let reply):
            saved = reply
        case .needsDecision(.freshContext(let reason, _), _):
            context.warn(reason.description)
            context.errors.line(
                "Nothing was sent or saved. To send it with a fresh server context, run the same command with --fresh-context"
                    + " (or --fresh-context=recap to start it with a recap of the earlier turns).")
            return ExitCode.failure
        case .needsDecision(.overflow(let overflow), _):
            let ways = [
                overflow.growTo.map {
                    "--on-overflow=grow reloads \(overflow.model) with its context grown to \(ContextMeter.compact($0))"
                },
                overflow.recap.map { "--on-overflow=recap starts a fresh context with a recap (\($0.summary))" },
                "--on-overflow=send sends it anyway"
            ].compactMap(\.self)
            // Fewer `-f` items is a way to send less only when there are some.
            let less = sources.isEmpty ? "or send less" : "or send less (fewer -f items)"
            throw UsageError(
                "\(TurnDecision.overflow(overflow)) Nothing was sent: \(ways.joined(separator: "; ")); \(less).",
                showsUsage: false)
        case .needsDecision(.chooseModel, _):
            throw ChatError.noModel
        case .refused(let error, _), .failed(let error, _):
            if let error = error as? ContextError { throw UsageError("\(error)", showsUsage: false) }
            throw error
        }
        if saved.streamedVersionId != nil {
            context.warn(
                "the server's final reply replaced what streamed; the streamed version is kept as an alternative "
                    + "(llmster show \(conversationId.prefix(8)) --alternatives)")
        }
        switch saved.status {
        case .complete:
            return ExitCode.success
        default:
            if let message = saved.errorMessage { context.warn(message) }
            return ExitCode.incompleteReply
        }
    }

    /// The context items `-f` names, in order, each announced on standard error with its chip (and a directory's or
    /// pattern's skipped paths with why); a path or page that cannot be used is a usage error, before anything is sent.
    static func contextItems(_ sources: [String], session: ChatSession, context: CommandContext) async throws
        -> [ContextItem]
    {
        var items: [ContextItem] = []
        let transport = CurlTransport()
        do throws(ContextError) {
            for source in sources {
                if source == "-" {
                    let limit = session.contextLimits.item
                    let bytes = [UInt8]((try? FileHandle.standardInput.read(upToCount: limit + 1)) ?? Data())
                    guard bytes.count <= limit else {
                        throw ContextError.itemTooLarge("standard input", size: nil, limit: limit)
                    }
                    items.append(
                        try ContextReader(limits: session.contextLimits).text(named: "standard input", bytes: bytes))
                } else if source.hasPrefix("http://") || source.hasPrefix("https://") {
                    items.append(try await session.fetchContext(source, transport: transport))
                } else {
                    let reading = try session.readContext(source)
                    items += reading.items
                    for skipped in reading.skipped {
                        context.errors.line("Skipped \(skipped.description)")
                    }
                }
            }
            try session.contextLimits.check(items)
        } catch {
            throw UsageError("\(error)", showsUsage: false)
        }
        for item in items { context.errors.line("Context: \(item.chip)") }
        return items
    }

    /// Opens the conversation to send on through `ChatSession.openConversation`: continued (`-c`, `--chat CHAT`),
    /// or new, with the model, folder, system prompt, reasoning and integrations given (options a command does
    /// not declare are simply absent) and `preset` under them; `llmster voice` and the REPL's start share it.
    ///
    /// A CHAT that matches nothing throws `ChatError.unknownConversation` with the closest titles; an unknown
    /// preset or integration is a usage error, found before anything is created.
    package static func open(for arguments: ArgumentParser.Parsed, session: ChatSession, preset: String?) async throws
        -> OpenedConversation
    {
        let names = arguments.all(.integration)
        let overrides = ConversationOverrides(
            model: arguments.value(.model), systemPrompt: arguments.value(.system),
            reasoning: arguments.value(.reasoning),
            folder: arguments.value(.folder).map(ConversationOverrides.Folder.path),
            integrations: names.isEmpty ? nil : names == ["none"] ? [] : names, preset: preset)
        do {
            return try await session.openConversation(try reference(arguments), overrides: overrides)
        } catch let error as ChatError {
            switch error {
            case .unknownIntegration, .unknownPreset: throw UsageError("\(error)")
            default: throw error
            }
        }
    }
}
