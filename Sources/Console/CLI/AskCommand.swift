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
            .init(["system"], value: "TEXT", help: "system prompt for a new conversation"),
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
        let integrations = try chosenIntegrations(arguments, configuration: context.configuration)
        let session = try context.session()
        let conversationId = try await conversation(for: arguments, session: session)
        if let integrations {
            let added = try await session.withLibrary { try $0.setIntegrations(conversationId: conversationId, names: integrations) }
            if !added.isEmpty {
                context.errors.line("Note: enabled integrations (\(added.joined(separator: ", "))) may contact external services on the server's behalf.")
            }
        }

        let display = ReplyDisplay.forCommandLine(context: context)
        let environment = context.environment
        let latch = SignalLatch()
        let work = Task {
            if resend {
                return try await session.retry(in: conversationId, freshContext: true) { await display.show($0) }
            }
            return try await session.send(Turn(text: prompt, images: images), in: conversationId,
                                          freshContext: arguments.has("fresh-context")) { await display.show($0) }
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
        let outcome: SavedReply
        do {
            outcome = try await work.value
        } catch ChatError.continuationLost {
            context.warn(ChatError.continuationLost(conversationId: conversationId).description)
            context.errors.line("To resend your message with a fresh server context: llmster ask --continue=\(conversationId.prefix(8)) --fresh-context")
            return ExitCode.failure
        }
        if let signal = latch.signal { return SignalTrap.exitStatus(for: signal) }
        switch outcome.status {
        case .complete:
            return ExitCode.success
        default:
            if let message = outcome.errorMessage { context.warn(message) }
            return ExitCode.incompleteReply
        }
    }

    /// The integrations `--integration` names (nil when not given, empty for `none`), each checked against the configuration.
    private static func chosenIntegrations(_ arguments: ArgumentParser.Parsed, configuration: Configuration) throws -> [String]? {
        let names = arguments.all("integration")
        guard !names.isEmpty else { return nil }
        if names == ["none"] { return [] }
        for name in names where configuration.integrations[name] == nil {
            let known = configuration.integrations.keys.sorted()
            throw UsageError("no integration named '\(name)' is configured" + (known.isEmpty
                ? "; add `integration.\(name) = mcp/… or https://…` to the config"
                : "; configured: \(known.joined(separator: ", "))"))
        }
        return names
    }

    /// The conversation to send on: continued, or new with the given model, folder, system prompt and reasoning
    /// (options a command does not declare are simply absent); `llmster voice` shares it.
    static func conversation(for arguments: ArgumentParser.Parsed, session: ChatSession) async throws -> String {
        let model = arguments.value("model")
        let reasoning = arguments.value("reasoning")
        if arguments.has("continue") {
            let reference = arguments.value("continue")
            return try await session.withLibrary { library in
                guard var conversation = try reference.map({ try library.resolveConversation($0) }) ?? library.mostRecentConversation() else {
                    throw UsageError("there is no conversation to continue yet")
                }
                if let model { conversation.modelKey = model }
                if let reasoning { conversation.settings.reasoning = reasoning }
                if let system = arguments.value("system") { conversation.systemPrompt = system }
                try library.updateConversation(conversation)
                return conversation.id
            }
        }
        return try await session.withLibrary { library in
            let folderId = try arguments.value("folder").map { try library.ensureFolder(path: $0).id }
            var settings = ConversationSettings()
            settings.reasoning = reasoning
            return try library.createConversation(title: "", folderId: folderId, modelKey: model,
                                                  systemPrompt: arguments.value("system"), settings: settings).id
        }
    }
}
