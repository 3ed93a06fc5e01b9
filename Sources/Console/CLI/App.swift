import TerminalMarkdown
import Chat
import Foundation
import Library
import LMStudio
import SystemSupport

/// The `llmster` command line: global options, subcommand dispatch, errors to exit statuses.
public enum App {
    /// The version `--version` prints.
    public static let version = "0.1.0"

    static let globalOptions = ArgumentParser([
        .init(["server"], value: "URL", help: "LM Studio server (default $LLMSTER_SERVER, the config, or http://localhost:1234)"),
        .init(["library"], value: "PATH", help: "library file (default $XDG_DATA_HOME/llmster/library.sqlite3)"),
        .init(["config"], value: "PATH", help: "configuration file, which must exist (default $XDG_CONFIG_HOME/llmster/config)"),
        .init(["markdown"], value: "WHEN", choices: ["auto", "always", "never"], help: "render Markdown: auto (on a terminal), always, never"),
        .init(["demo"], help: "run against the built-in LM Studio simulator, with a temporary library"),
        .init(["preset"], value: "NAME", help: "use preset NAME (preset.NAME.… in the config): its system prompt, model and settings"),
        .init(["version"], short: "V", help: "print the version"),
        .init(["help"], short: "h", help: "show this help"),
    ])

    /// Every subcommand, in the order `--help` lists them.
    public static let commands: [Command] = [
        ModelCommands.models, ModelCommands.ps, ModelCommands.load, ModelCommands.unload,
        DoctorCommand.command,
        AskCommand.command, VoiceCommand.command,
        LibraryCommands.chats, LibraryCommands.show, LibraryCommands.search,
        DownloadCommand.command,
        TransferCommands.export, TransferCommands.import, TransferCommands.backup, TransferCommands.restore,
        RpcCommand.command,
    ]

    /// The text of `llmster --help`.
    public static var help: String {
        let width = commands.map(\.name.count).max() ?? 0
        let list = commands.map { "  " + $0.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.summary }
        return """
        usage: llmster [global options] [command] [arguments]

        A terminal client for LM Studio. Without a command, opens the chat REPL.

        commands:
        \(list.joined(separator: "\n"))

        global options:
        \(globalOptions.optionHelp)

        `llmster COMMAND --help` describes a command; `man llmster` describes everything.
        Exit status: 0 ok, 1 failure, 2 usage, 3 server unreachable or too old, 4 token missing or
        rejected, 5 not found, 6 reply incomplete, 130 interrupted, 143 terminated.

        """
    }

    /// Runs llmster with `arguments` (without the program name); `startDemo` starts the simulator and returns its URL.
    public static func run(arguments: [String], environment: [String: String],
                           startDemo: @Sendable () throws -> String) async -> Int32 {
        let errors = StandardStream.error
        // Global options come before the command word.
        let commandIndex = firstCommandWord(in: arguments)
        let globalWords = Array(arguments[..<(commandIndex ?? arguments.endIndex)])
        let global: ArgumentParser.Parsed
        do { global = try globalOptions.parse(globalWords) } catch {
            errors.line("llmster: \(error)\nusage: llmster [global options] [command] [arguments]; see llmster --help")
            return ExitCode.usage
        }
        if global.has("version") { StandardStream.output.line("llmster \(version)"); return ExitCode.success }
        if global.has("help") && commandIndex == nil { StandardStream.output.send(help); return ExitCode.success }

        var context: CommandContext
        do {
            context = try makeContext(global: global, environment: environment, startDemo: startDemo)
        } catch {
            errors.line("llmster: \(UntrustedText.sanitize(ServerURL.redactingPasswords(in: String(describing: error))))")
            return ExitCode.failure
        }
        if context.isDemo {
            errors.line(WordWrap.lines("llmster: demo mode — talking to the built-in LM Studio simulator at \(context.server); the library is temporary.",
                                       width: TerminalCapabilities.detect(fd: 2, environment: environment).width).joined(separator: "\n"))
        }

        guard let commandIndex else {
            return await Repl.run(context: context)
        }
        let name = arguments[commandIndex]
        guard let command = commands.first(where: { $0.name == name }) else {
            let suggestion = EditDistance.nearest(to: name, in: commands.map(\.name), maximum: 3)
            errors.line("llmster: unknown command '\(UntrustedText.sanitize(name))'" + (suggestion.map { " (did you mean '\($0)'?)" } ?? "") + "; see llmster --help")
            return ExitCode.usage
        }
        let parsed: ArgumentParser.Parsed
        do { parsed = try command.parser.parse(Array(arguments[(commandIndex + 1)...])) } catch {
            errors.line("llmster \(name): \(error)\n\(command.usageLine)")
            return ExitCode.usage
        }
        if parsed.has("help") { StandardStream.output.send(command.help); return ExitCode.success }
        do {
            return try await command.run(parsed, context)
        } catch let error as UsageError {
            errors.line("llmster \(name): \(error)\n\(command.usageLine)")
            return ExitCode.usage
        } catch {
            context.warn((error as? LMStudioError)?.description(credentialsFile: context.paths.credentialsFile) ?? String(describing: error))
            return exitCode(for: error)
        }
    }

    /// The exit status that tells a script what kind of failure `error` is.
    public static func exitCode(for error: any Error) -> Int32 {
        switch error {
        case let error as LMStudioError:
            switch error {
            case .unreachable, .timedOut, .serverTooOld: return ExitCode.unreachable
            case .tokenMissing, .tokenRejected, .malformedToken: return ExitCode.authentication
            case .modelNotFound: return ExitCode.notFound
            default: return ExitCode.failure
            }
        case let error as ChatError:
            switch error {
            case .server(let inner): return exitCode(for: inner)
            case .storage(let inner): return exitCode(for: inner)
            case .credentials(let inner): return exitCode(for: inner)
            case .modelNotDownloaded: return ExitCode.notFound
            default: return ExitCode.failure
            }
        case is CredentialsError: return ExitCode.authentication
        case let error as LibraryError:
            if case .notFound = error { return ExitCode.notFound }
            if case .ambiguousConversation = error { return ExitCode.notFound }
            return ExitCode.failure
        default: return ExitCode.failure
        }
    }

    /// The index of the command word: the first word that is neither a global option nor its value.
    private static func firstCommandWord(in arguments: [String]) -> Int? {
        let takesValue = Set(globalOptions.options.filter { $0.value != nil }.map { "--" + $0.names[0] })
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if takesValue.contains(word) { index += 2; continue }
            if !word.hasPrefix("-") { return index }
            index += 1
        }
        return nil
    }

    private static func makeContext(global: ArgumentParser.Parsed, environment: [String: String],
                                    startDemo: () throws -> String) throws -> CommandContext {
        let paths = Paths(environment: environment)
        let configPath = global.value("config") ?? paths.configFile
        var configuration = try Configuration.load(path: configPath, mustExist: global.value("config") != nil)
        configuration.credentialsFile = paths.credentialsFile
        if let server = environment["LLMSTER_SERVER"], !server.isEmpty { try configuration.setValue(server, forKey: "server") }
        if let server = global.value("server") { try configuration.setValue(server, forKey: "server") }
        var libraryPath = global.value("library") ?? paths.libraryFile
        let isDemo = global.has("demo")
        if isDemo {
            try configuration.setValue(try startDemo(), forKey: "server")
            if global.value("library") == nil {
                libraryPath = NSTemporaryDirectory() + "llmster-demo-\(getpid())/library.sqlite3"
            }
        }
        return CommandContext(environment: environment, paths: paths, configuration: configuration, configurationPath: configPath,
                              libraryPath: libraryPath,
                              markdownMode: global.value("markdown") ?? configuration.markdown, isDemo: isDemo,
                              preset: global.value("preset"))
    }
}
