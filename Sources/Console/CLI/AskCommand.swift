import Chat
import Foundation
import Library
import LMStudio
import TerminalMarkdown

/// `llmster ask`: one turn from the command line, the answer streamed to standard output.
enum AskCommand {
    static let command = Command(
        "ask", synopsis: "[PROMPT…] [-m MODEL] [-c|--continue[=CHAT]] [--folder F] [--system TEXT] [--image FILE]… [--reasoning VALUE] [--integration NAME]… [--no-save]",
        summary: "Send one message and stream the answer to standard output.",
        details: """
        The prompt is the arguments, or standard input when there are none. On a terminal the answer is
        rendered Markdown; piped, it is the raw Markdown text. Stages (model loading, prompt processing),
        the reasoning tail and tool calls go to standard error, only when it is a terminal.
        Exit status 0 only for a complete reply; 6 when the reply is incomplete (what arrived is saved);
        130 after Ctrl-C and 143 after SIGTERM, with the partial reply saved.
        When the server no longer knows the conversation's context, llmster says so and keeps the
        transcript: `llmster ask --continue=CHAT --fresh-context` resends the unanswered message with a fresh
        server context (add a PROMPT to send a new message instead).
        """,
        options: [
            .init(["model"], short: "m", value: "MODEL", help: "model key (default: the conversation's, default_model, or the loaded model)"),
            .init(["continue"], short: "c", value: "CHAT", optionalValue: true, help: "continue the most recent conversation, or CHAT (an id, id prefix or title)"),
            .init(["folder"], value: "F", help: "put a new conversation in folder F (e.g. Work/Research; created if missing)"),
            .init(["system"], value: "TEXT", help: "system prompt (with -c: replaces it and starts a fresh server context)"),
            .init(["image"], value: "FILE", help: "attach an image (PNG, JPEG, WebP, GIF; vision models only); repeatable"),
            .init(["reasoning"], value: "VALUE", help: "reasoning setting, one of the model's allowed options"),
            .init(["integration"], value: "NAME", help: "let the model use this configured integration (repeatable; `none` turns them off)"),
            .init(["fresh-context"], help: "drop the server-side context and start a fresh one (the transcript is kept)"),
            .init(["no-save"], help: "do not keep this exchange in the library"),
        ]
    ) { arguments, context in
        try await run(arguments, context)
    }

    static func run(_ arguments: ArgumentParser.Parsed, _ context: CommandContext) async throws -> Int32 {
        if arguments.has("no-save"), arguments.has("continue") {
            throw UsageError("--no-save starts a throwaway conversation; it cannot continue one")
        }
        var prompt = arguments.positionals.joined(separator: " ")
        let resend = prompt.isEmpty && arguments.has("fresh-context") && arguments.has("continue")
        if prompt.isEmpty, !resend {
            guard !StandardStream(fd: 0).isTerminal else { throw UsageError("give a prompt, or pipe one on standard input") }
            prompt = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            guard !prompt.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw UsageError("the prompt on standard input is empty")
            }
        }
        var images: [ImageInput] = []
        for path in arguments.all("image") {
            do { images.append(try ImageInput.load(path: path)) } catch { throw UsageError(error.description) }
        }

        var context = context
        if arguments.has("no-save") {
            context.libraryPath = NSTemporaryDirectory() + "llmster-nosave-\(getpid())-\(UInt32.random(in: 0...UInt32.max))/library.sqlite3"
        }
        defer {
            if arguments.has("no-save") { try? FileManager.default.removeItem(atPath: (context.libraryPath as NSString).deletingLastPathComponent) }
        }
        let session = try context.session()
        // An unknown preset is a usage error, found before a conversation is made for the message.
        if let name = context.preset { do { _ = try session.preset(named: name) } catch { throw UsageError(String(describing: error)) } }
        let opened = try await open(for: arguments, session: session)
        let conversationId = opened.conversation.id
        if !opened.enabledIntegrations.isEmpty {
            context.errors.line("Note: enabled integrations (\(opened.enabledIntegrations.joined(separator: ", "))) may contact external services on the server's behalf.")
        }
        var promptEffect = opened.systemPrompt
        if let name = context.preset {
            // The preset's values, except what -m and --system name explicitly.
            var effect = try await session.applyPreset(name, conversationId: conversationId, includingModel: arguments.value("model") == nil).systemPrompt
            if let system = arguments.value("system") { effect = try await session.setSystemPrompt(system, conversationId: conversationId) }
            if effect == .needsFreshContext { promptEffect = effect }
        }
        let freshContext = arguments.has("fresh-context") || promptEffect == .needsFreshContext
        if promptEffect == .needsFreshContext, !arguments.has("fresh-context") {
            context.errors.line("Note: the new system prompt takes effect with a fresh server context; this message starts one (the model will not remember earlier turns).")
        }

        let display = ReplyDisplay.forCommandLine(context: context)
        let environment = context.environment
        let latch = SignalLatch()
        let work = Task {
            if resend {
                return try await session.regenerate(in: conversationId, freshContext: true) { await display.show($0) }
            }
            return try await session.send(Turn(text: prompt, images: images), in: conversationId, freshContext: freshContext,
                                          discardingNewConversation: opened.isNew) { await display.show($0) }
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
        let result = await work.result
        // A signal wins over whatever it interrupted: Ctrl-C before the server answered cancels the request.
        if let signal = latch.signal { return SignalTrap.exitStatus(for: signal) }
        let outcome: SavedReply
        do {
            outcome = try result.get()
        } catch ChatError.continuationLost {
            context.warn(ChatError.continuationLost(conversationId: conversationId).description)
            context.errors.line("To resend your message with a fresh server context: llmster ask --continue=\(conversationId.prefix(8)) --fresh-context")
            return ExitCode.failure
        }
        switch outcome.status {
        case .complete:
            return ExitCode.success
        default:
            if let message = outcome.errorMessage { context.warn(message) }
            return ExitCode.incompleteReply
        }
    }

    /// Opens the conversation to send on through `ChatSession.openConversation`: continued (`--continue[=CHAT]`),
    /// or new, with the model, folder, system prompt, reasoning and integrations given (options a command does
    /// not declare are simply absent); `llmster voice` shares it.
    static func open(for arguments: ArgumentParser.Parsed, session: ChatSession) async throws -> OpenedConversation {
        let names = arguments.all("integration")
        let overrides = ConversationOverrides(
            model: arguments.value("model"), systemPrompt: arguments.value("system"), reasoning: arguments.value("reasoning"),
            folder: arguments.value("folder").map(ConversationOverrides.Folder.path),
            integrations: names.isEmpty ? nil : names == ["none"] ? [] : names)
        let reference: ConversationReference = arguments.has("continue")
            ? arguments.value("continue").map(ConversationReference.named) ?? .mostRecent : .new
        do {
            return try await session.openConversation(reference, overrides: overrides)
        } catch let error as ChatError {
            if case .unknownIntegration = error { throw UsageError(error.description) }
            throw error
        }
    }
}
