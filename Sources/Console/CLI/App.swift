import Chat
import Foundation
import HTTP
import LMStudio
import Library
import Markdown
import Synchronization
import SystemSupport
import TerminalMarkdown

/// The `llmster` command line: global options, subcommand dispatch, errors to exit statuses.
public enum App {
    /// The version `--version` prints.
    public static let version = "0.1.0"

    static let globalOptions = ArgumentParser([
        .init(
            [.server], value: "URL",
            help:
                "LM Studio server: a URL or the NAME of a server.NAME profile (default $LLMSTER_SERVER, the config, or http://localhost:1234, else the port LM Studio publishes)"
        ),
        .init([.library], value: "PATH", help: "library file (default $XDG_DATA_HOME/llmster/library.sqlite3)"),
        .init(
            [.config], value: "PATH",
            help: "configuration file, which must exist (default $XDG_CONFIG_HOME/llmster/config)"),
        .init(
            [.markdown], value: "WHEN", choices: ["auto", "always", "never"],
            help: "render Markdown: auto (on a terminal), always, never"),
        .init([.demo], help: "run against the built-in LM Studio simulator, with a temporary library"),
        .init(
            [.preset], value: "NAME",
            help:
                "use preset NAME (preset.NAME.… in the config): its system prompt, model, settings and message template"
        ),
        .init([.version], short: "V", help: "print the version"),
        .init([.help], short: "h", help: "show this help")
    ])

    /// The options of `llmster` without a command: where the REPL starts.
    static let replOptions: [ArgumentParser.Option] = [
        .init(
            [.model], short: "m", value: "MODEL",
            help: "start the REPL on MODEL (a key, an alias.NAME or an instance id)"),
        .init(
            [.continue], short: "c", value: "CHAT", optionalValue: true,
            help: "resume the conversation last used (opened or sent to)"),
        .init([.chat], value: "CHAT", help: "resume CHAT: an id, id prefix or title")
    ]

    /// Console's own subcommands, in the order `--help` lists them.
    static let ownCommands: [Command] = [
        ModelCommands.models, ModelCommands.ps, ModelCommands.load, ModelCommands.unload,
        DoctorCommand.command,
        AskCommand.command,
        LibraryCommands.chats, LibraryCommands.show, LibraryCommands.search, ForkCommand.command,
        DownloadCommand.command,
        TransferCommands.export, TransferCommands.import, TransferCommands.backup, TransferCommands.restore,
        CompletionCommands.completions, CompletionCommands.complete
    ]

    /// What the executable added with `run(…, faces:)`.
    private static let added = Mutex(AddedFaces())

    /// The faces the executable added to this process (none until `run`).
    static var faces: AddedFaces { added.withLock { $0 } }

    /// Every subcommand, in the order `--help` lists them: Console's own with the executable's placed among them.
    public static var commands: [Command] {
        var commands = ownCommands
        for (command, predecessor) in faces.commands {
            let index = commands.firstIndex { $0.name == predecessor }.map { $0 + 1 } ?? commands.count
            commands.insert(command, at: index)
        }
        return commands
    }

    /// The usage line of `llmster` itself.
    static let usageLine = UsageLine(term: "usage: llmster", synopsis: "[options] [command] [arguments]")

    /// The text of `llmster --help` laid out to `width` columns: descriptions wrap under their column.
    public static func help(width: Int, fit: TextFit) -> String {
        let shown = commands.filter { !$0.isHidden }
        let column = (shown.map(\.name.count).max() ?? 0) + 4
        let list = shown.map { TextLayout.hanging("  " + $0.name, $0.summary, column: column, width: width, fit: fit) }
        func paragraph(_ text: String) -> String { TextLayout.paragraphs(text, width: width, fit: fit) }
        return """
            \(usageLine.lines(width: width, fit: fit).joined(separator: "\n"))

            \(paragraph("A terminal client for LM Studio. Without a command, opens the chat REPL: `llmster -m MODEL` on a model, `llmster -c` on the conversation last used, `llmster --chat CHAT` on one."))

            commands:
            \(list.joined(separator: "\n"))

            REPL options:
            \(ArgumentParser(replOptions).optionHelp(width: width, fit: fit))

            global options (before or after the command):
            \(globalOptions.optionHelp(width: width, fit: fit))

            \(paragraph("`llmster COMMAND --help` describes a command; `man llmster` describes everything. Exit status: 0 ok, 1 failure, 2 usage, 3 server unreachable or too old, 4 token missing or rejected, 5 not found, 6 reply incomplete, 130 interrupted, 143 terminated."))

            """
    }

    /// Reports a usage error of `command` (llmster itself when nil) with its usage line, llmster's own pointing at
    /// `--help`, unless `showsUsage` is false; the usage exit status.
    private static func usageError(_ message: String, of command: Command?, showsUsage: Bool = true) -> Int32 {
        let message: SanitizedMessage = "llmster\(command.map { " " + $0.name } ?? ""): \(message)"
        if showsUsage {
            StandardStream.error.usageError(
                message, usage: command?.usageLine ?? usageLine.adding("; see llmster --help"), indent: 9)
        } else {
            StandardStream.error.wrappedLine(message, indent: 9)
        }
        return ExitCode.usage
    }

    /// Runs llmster with `arguments` (without the program name), with the commands of the `faces` the executable
    /// links; `startDemo` starts the simulator and returns its URL.
    ///
    /// The first word that is not an option names the command; global options may come before or after it.
    public static func run(
        arguments: [String], environment: [String: String], faces: AddedFaces = AddedFaces(),
        startDemo: @Sendable () throws -> String
    ) async -> Int32 {
        added.withLock { $0 = faces }
        let errors = StandardStream.error
        let commandIndex = firstCommandWord(in: arguments)
        var command: Command?
        if let commandIndex {
            let name = arguments[commandIndex]
            guard let named = commands.first(where: { $0.name == name }) else {
                let suggestion = EditDistance.nearest(
                    to: name, in: commands.filter { !$0.isHidden }.map(\.name), maximum: 2)
                errors.wrappedLine(
                    "llmster: unknown command '\(UntrustedText.sanitize(name))'"
                        + (suggestion.map { " (did you mean '\($0)'?)" } ?? "") + "; see llmster --help", indent: 9)
                return ExitCode.usage
            }
            command = named
        }
        var words = arguments
        if let commandIndex { words.remove(at: commandIndex) }
        let parsed: ArgumentParser.Parsed
        do {
            parsed = try (command?.parser ?? ArgumentParser(replOptions)).including(globalOptions.options).parse(words)
        } catch {
            return usageError("\(error)", of: command)
        }
        if parsed.has(.version) {
            await printVersion(global: parsed, environment: environment)
            return ExitCode.success
        }
        if parsed.has(.help) {
            let width = TextLayout.outputWidth(environment: environment) ?? 80
            let fit = TerminalCapabilities.detect(fd: 1, environment: environment).textFit
            StandardStream.output.send(
                laidOut: command.map { $0.help(width: width, fit: fit) } ?? help(width: width, fit: fit))
            return ExitCode.success
        }
        if command == nil, let stray = parsed.positionals.first {
            return usageError("unexpected '\(UntrustedText.sanitize(stray))'", of: nil)
        }

        var context: CommandContext
        do {
            context = try makeContext(global: parsed, environment: environment, startDemo: startDemo)
        } catch {
            errors.wrappedLine(
                "llmster: \(UntrustedText.sanitize(ServerURL.redactingPasswords(in: String(describing: error))))",
                indent: 9)
            return ExitCode.failure
        }
        if context.isDemo {
            errors.wrappedLine(
                "llmster: demo mode — talking to the built-in LM Studio simulator at \(context.server); the library is temporary.",
                indent: 9)
        } else if case .lmStudioFile(let path) = context.serverSource, errors.isTerminal {
            errors.wrappedLine(
                "llmster: LM Studio's server found at \(context.server) (the port it published in \(UntrustedText.sanitize(path)));"
                    + " nothing answered at localhost:1234.", indent: 9)
        }
        do {
            guard let command else { return try await startRepl(parsed, context: context) }
            return try await command.run(parsed, context)
        } catch let error as UsageError {
            return usageError(error.description, of: command, showsUsage: error.showsUsage)
        } catch {
            context.warn(explanation(of: error, context: context))
            return exitCode(for: error)
        }
    }

    /// Opens the REPL where `-m MODEL`, `-c` or `--chat CHAT` say: the conversation is resolved (and given the
    /// model) as `ask` does, and a model alone must be one the server has downloaded, when it can be asked.
    private static func startRepl(_ arguments: ArgumentParser.Parsed, context: CommandContext) async throws -> Int32 {
        let reference = try AskCommand.reference(arguments)
        let model = arguments.value(.model).map(context.configuration.modelKey(for:))
        guard reference != .new || model != nil else { return await Repl.run(context: context) }
        let session = try context.session()
        if reference != .new {
            // The REPL applies `--preset` itself (as `/preset`), so it shows what the preset set.
            let opened = try await AskCommand.open(for: arguments, session: session, preset: nil)
            return await Repl.run(context: context, chat: session, conversationId: opened.conversation.id)
        }
        if let model, let models = try? await session.models() { _ = try models.downloadedModel(model) }
        return await Repl.run(context: context, chat: session, model: model)
    }

    /// The client's name and version, told apart from LM Studio's headless daemon (also named `llmster`); on a
    /// terminal also the LM Studio at the configured server when it answers its greeting within a fraction of a
    /// second. Piped (scripts, editors checking the binary) nothing is asked of the server, so it stays instant.
    private static func printVersion(global: ArgumentParser.Parsed, environment: [String: String]) async {
        let output = StandardStream.output
        output.line(
            "llmster-client \(version) — a terminal client for LM Studio, not LM Studio's own headless daemon (`lms daemon up`, also named llmster)"
        )
        guard output.isTerminal, !global.has(.demo),
            let context = try? makeContext(global: global, environment: environment, startDemo: { "" })
        else { return }
        let client = LMStudioClient(
            server: context.server, token: nil, transport: CurlTransport(),
            timeouts: HTTPTimeouts(connect: 0.3, idle: 0.5), userAgent: CommandContext.userAgent)
        let server = UntrustedText.sanitize(ServerURL.redactingPasswords(in: context.server))
        switch await Result(catching: { try await client.greeting() }) {
        case .success(let greeting) where greeting.lmstudio:
            let named =
                greeting.version.map { "LM Studio " + UntrustedText.sanitize(String($0.prefix(40))) }
                ?? "LM Studio (version not given)"
            output.line("server: \(named) at \(server)")
        case .success:
            output.line("server: \(server) answers, but does not say it is LM Studio")
        case .failure:
            output.line("server: no LM Studio answered at \(server)")
        }
    }

    /// What `error` means for the user; a server that cannot be reached also gets the way to try llmster without one.
    static func explanation(of error: any Error, context: CommandContext) -> String {
        let server: LMStudioError? =
            switch error {
            case let error as LMStudioError: error
            case ChatError.server(let inner): inner
            default: nil
            }
        guard let error = server else { return String(describing: error) }
        let text = error.description(credentialsFile: context.paths.credentialsFile)
        switch error {
        case .unreachable, .timedOut(_, .connect):
            return context.isDemo ? text : text + " To try llmster without a server: `llmster --demo`."
        default:
            return text
        }
    }

    /// The exit status that tells a script what kind of failure `error` is: its category (`ErrorCategory`) decides.
    public static func exitCode(for error: any Error) -> Int32 {
        switch ErrorCategory(of: error) {
        case .unreachable: ExitCode.unreachable
        case .authentication: ExitCode.authentication
        case .modelNotFound, .notFound: ExitCode.notFound
        case .invalid, .contextOverflow, .continuationLost, .server, .storage, .invalidFile, .needsConfirmation, .busy,
            .cancelled, .internal:
            ExitCode.failure
        }
    }

    /// The index of the command word: the first word that is neither an option of `llmster` itself nor its value.
    private static func firstCommandWord(in arguments: [String]) -> Int? {
        let valued = (globalOptions.options + replOptions).filter { $0.value != nil && !$0.valueIsOptional }
        let takesValue = Set(
            valued.flatMap { option in option.names.map { "--" + $0 } + (option.short.map { ["-\($0)"] } ?? []) })
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if word == "--" { return nil }
            if takesValue.contains(word) {
                index += 2
                continue
            }
            if !word.hasPrefix("-") { return index }
            index += 1
        }
        return nil
    }

    private static func makeContext(
        global: ArgumentParser.Parsed, environment: [String: String],
        startDemo: () throws -> String
    ) throws -> CommandContext {
        let paths = Paths(environment: environment)
        let configPath = global.value(.config) ?? paths.configFile
        var configuration = try Configuration.load(path: configPath, mustExist: global.value(.config) != nil)
        configuration.credentialsFile = paths.credentialsFile
        // A config line naming the default address is the default: the published port may still be looked for.
        var source: ServerDiscovery.Source =
            ServerURL.same(configuration.server, Configuration.defaultServer) ? .builtInDefault : .configuration
        if let server = environment["LLMSTER_SERVER"], !server.isEmpty {
            try configuration.selectServer(server)
            source = .environment
        }
        if let server = global.value(.server) {
            try configuration.selectServer(server)
            source = .option
        }
        var libraryPath = global.value(.library) ?? paths.libraryFile
        let isDemo = global.has(.demo)
        if source == .builtInDefault, !isDemo,
            let (server, found) = ServerDiscovery.discovered(environment: environment)
        {
            try configuration.setValue(server, forKey: "server")
            source = found
        }
        if isDemo {
            source = .demo
            try configuration.setValue(try startDemo(), forKey: "server")
            if global.value(.library) == nil {
                libraryPath = NSTemporaryDirectory() + "llmster-demo-\(getpid())/library.sqlite3"
            }
        }
        var context = CommandContext(
            environment: environment, paths: paths, configuration: configuration, configurationPath: configPath,
            libraryPath: libraryPath,
            markdownMode: global.value(.markdown) ?? configuration.markdown, isDemo: isDemo,
            preset: global.value(.preset))
        context.serverSource = source
        if configuration.widthMode == "auto", isatty(1) == 1 {
            context.measuredWidthModel = MeasuredWidths.model(paths: paths, environment: environment)
        }
        return context
    }
}
