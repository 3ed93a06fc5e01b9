import Chat
import Foundation
import LMStudio
import Library
import Markdown
import TerminalMarkdown

extension ReplCommands {
    /// `/export`, `/import`, `/backup`, `/restore`: the command-line transfer, without its terminal questions
    /// (the REPL asks through its own line editor).
    static let movingCommands: [SlashCommand] = [
        SlashCommand(
            "export", "[FILE]", "Write this conversation to a .llmster file (default: named after the title, here).",
            takesText: true, argument: .path
        ) { arguments, repl in
            guard let id = repl.conversationId else { throw UsageError("there is no conversation to export yet") }
            let file = try await Transfer.exportConversation(
                id, to: arguments.positionals.first, session: repl.chat, context: repl.context)
            repl.output.line("Exported to \(file ?? "standard output").")
        },
        SlashCommand(
            "import", "FILE",
            "Add a conversation from a .llmster file and open it, or LM Studio's own chats.",
            options: [
                .init([.yes], help: "keep the continuation when the file's server differs"),
                .init([.dropContinuation], help: "drop it: the next message starts a fresh server context"),
                .init([.asNew], help: "import a copy even if this export was imported before"),
                .init(
                    [.fromLmstudio], value: "DIR", optionalValue: true,
                    help: "import LM Studio's own chats (default ~/.lmstudio/conversations)"),
                .init([.dryRun], help: "with --from-lmstudio: say what would be imported, import nothing")
            ],
            forms: [
                UsageForm("FILE", [.yes, .dropContinuation, .asNew]), UsageForm(required: [.fromLmstudio], [.dryRun])
            ],
            exclusive: [[.yes, .dropContinuation]], argument: .path
        ) { arguments, repl in
            if arguments.has(.fromLmstudio) {
                try await Transfer.importLMStudioChats(
                    from: arguments.value(.fromLmstudio), dryRun: arguments.has(.dryRun),
                    session: repl.chat, context: repl.context)
                return
            }
            guard let path = arguments.positionals.first else { throw UsageError("name the .llmster file") }
            var policy: Transfer.ContinuationPolicy = arguments.has(.dropContinuation) ? .drop : .keep
            if !arguments.has(.yes), !arguments.has(.dropContinuation) {
                let plan = try repl.chat.importPlan(forFileAt: path)
                if let question = plan.question {
                    repl.output.line("\(UntrustedText.oneLine(question))")
                    policy =
                        await repl.confirm(
                            "Keep the continuation? (yes: \(plan.effect(of: .keep)); no: \(plan.effect(of: .drop)))")
                        ? .keep : .drop
                }
            }
            let conversation = try await Transfer.importConversation(
                from: path, continuation: policy, folder: nil, asNew: arguments.has(.asNew),
                session: repl.chat, context: repl.context)
            await repl.switchTo(conversation.id)
            // Imported with the file's dates; opened here, it is the one `llmster -c` continues.
            try? await repl.chat.recordUse(of: conversation.id)
            repl.output.line("Imported and opened \(UntrustedText.oneLine(conversation.displayTitle)).")
        },
        SlashCommand(
            "backup", "[FILE]", "Back the whole library up (encrypted with $LLMSTER_BACKUP_PASSWORD when set).",
            takesText: true, argument: .path
        ) { arguments, repl in
            try await Transfer.backup(
                to: arguments.positionals.first, passwordFile: nil, askPassword: false, session: repl.chat,
                context: repl.context)
        },
        SlashCommand(
            "restore", "FILE",
            "Replace the library with a backup (validated first; the current one is kept as a copy).",
            takesText: true, argument: .path
        ) { arguments, repl in
            guard let path = arguments.positionals.first else { throw UsageError("name the backup file") }
            let context = repl.context
            // What the backup holds is shown before the question, as `llmster restore` does; an encrypted one asks
            // for its password on the terminal, not echoed (or takes LLMSTER_BACKUP_PASSWORD).
            let restored = try await repl.chat.reopenLibrary { _ in
                try Transfer.restore(
                    from: path, confirmed: false, passwordFile: nil,
                    maximumKeyDerivationMemory: context.configuration.maxKeyDerivationMemory, context: context)
            }
            guard restored else { return }
            await repl.switchTo(nil)
            repl.output.line("This is a new chat in the restored library; /chats lists its conversations.")
        }
    ]

    /// `/server`, `/download`, `/integrations`, `/voice`.
    static let serverCommands: [SlashCommand] = [
        SlashCommand(
            "server", "[NAME|URL]",
            "List the server profiles (server.NAME = URL in the config), or talk to profile NAME (or URL) from now on.",
            argument: .serverProfile
        ) { arguments, repl in
            let configuration = repl.chat.configuration
            guard let reference = arguments.positionals.first else {
                let current = configuration.server
                let address = ServerURL.redactingPasswords(in: current)
                let currentLine =
                    "Server: "
                    + UntrustedText.sanitize(configuration.serverProfile.map { "\($0) (\(address))" } ?? address)
                guard !configuration.servers.isEmpty else {
                    repl.output.line(
                        "\(currentLine); no profiles are configured: add `server.NAME = http://HOST:1234` to the config."
                    )
                    return
                }
                repl.output.line("\(currentLine)")
                for (name, url) in configuration.servers.sorted(by: { $0.key < $1.key }) {
                    let mark = ServerURL.same(url, current) ? "* " : "  "
                    repl.output.line("\(mark + name)  \(ServerURL.redactingPasswords(in: url))")
                }
                return
            }
            guard arguments.positionals.count == 1 else {
                throw UsageError("name one server profile; /server lists them")
            }
            let chosen: Configuration
            do { chosen = try await repl.chat.useServer(reference) } catch let error as ConfigurationError {
                throw UsageError("\(error)")
            }
            repl.output.line(
                "Now talking to \(chosen.serverProfile.map { $0 + " " } ?? "")"
                    + "(\(ServerURL.redactingPasswords(in: chosen.server))).")
            await repl.refreshModels(reportingFailure: true)
            if let conversation = await repl.currentConversation(),
                case .elsewhere = repl.chat.serverContext(of: conversation)
            {
                repl.output.line(
                    "This conversation's server context is on another server: the next message offers a fresh context here."
                )
            }
        },
        SlashCommand(
            "download", "MODEL", "Start a server-side download (watch it with `llmster download --status JOB`).",
            takesText: true
        ) { arguments, repl in
            guard let model = arguments.positionals.first else { throw UsageError("name the model to download") }
            let status = try await repl.chat.download(DownloadRequest(model: model))
            if status.status == "already_downloaded" {
                repl.output.line("\(model) is already downloaded.")
            } else if let job = status.jobId {
                repl.output.line(SanitizedMessage(untrusted: DownloadProgressLine.describe(status, name: model)))
                repl.output.line(
                    "Download job \(UntrustedText.sanitize(job)) runs on the server; watch it: llmster download --status \(UntrustedText.sanitize(job))"
                )
                await repl.refreshModels()
            }
        },
        SlashCommand(
            "integrations", "[on|off NAME]",
            "List the configured integrations, or turn one on or off for this conversation.",
            argument: .choices(["on", "off"])
        ) { arguments, repl in
            let configured = repl.context.configuration.integrations
            let words = arguments.positionals
            guard words.count == 2, ["on", "off"].contains(words[0]) else {
                guard words.isEmpty else {
                    throw UsageError("use /integrations, /integrations on NAME or /integrations off NAME")
                }
                let enabled = Set(await repl.currentConversation()?.settings.integrations ?? [])
                guard !configured.isEmpty else {
                    repl.output.line(
                        "No integrations are configured: add `integration.NAME = mcp/… or https://…` to the config.")
                    return
                }
                for setting in configured.values.sorted(by: { $0.name < $1.name }) {
                    let kind = setting.isEphemeralMCP ? "MCP server" : "plugin"
                    repl.output.line(
                        "\(enabled.contains(setting.name) ? "on " : "off") \(setting.name)  \(kind) \(UntrustedText.sanitize(setting.target))"
                    )
                }
                return
            }
            let name = words[1]
            guard configured[name] != nil else {
                throw UsageError(
                    "no integration named '\(name)'; configured: \(configured.keys.sorted().joined(separator: ", "))")
            }
            let id = try await repl.ensureConversation()
            var names = await repl.currentConversation()?.settings.integrations ?? []
            names.removeAll { $0 == name }
            if words[0] == "on" { names.append(name) }
            let opened = try await repl.chat.openConversation(
                .named(id), overrides: ConversationOverrides(integrations: names))
            if !opened.enabledIntegrations.isEmpty {
                repl.output.line("Note: enabled integrations may contact external services on the server's behalf.")
            }
        },
        SlashCommand(
            "voice", "",
            "Talk instead of typing: on-device recognition; a pause sends the turn (Ctrl-C stops); --speak or /set speak on reads answers aloud.",
            options: [.init([.speak], help: "read the answers aloud")]
        ) { arguments, repl in
            guard let start = App.faces.voice else {
                repl.context.warn("voice is not part of this build of llmster")
                return
            }
            let converse = try await start(repl.context, arguments.has(.speak) || repl.speaksAnswers)
            let id = try await repl.ensureConversation()
            let chat = repl.chat
            let router = repl.router
            _ = await repl.stream(conversationId: id, modelName: (await repl.effectiveModel())?.reference ?? "") {
                _, _ in try await converse(chat, id, { StopReason.signal(router.replyStopSignal) })
            }
        }
    ]
}
