import Chat
import Library
import Markdown
import TerminalMarkdown

/// `llmster completions SHELL` and the hidden `llmster __complete KIND` the scripts call for names that change.
enum CompletionCommands {
    static let completions = Command(
        "completions", arguments: "SHELL",
        summary: "Print the shell completion script for bash, zsh or fish.",
        details: """
            bash: llmster completions bash > ~/.local/share/bash-completion/completions/llmster

            zsh: llmster completions zsh > ~/.zfunc/_llmster (a directory on $fpath)

            fish: llmster completions fish > ~/.config/fish/completions/llmster.fish

            The scripts complete commands and options, conversation titles, folders, model keys and instances
            (asked of llmster at completion time) and file names. share/completions holds the same scripts.
            """
    ) { arguments, context in
        guard arguments.positionals.count == 1, let script = ShellCompletion.script(for: arguments.positionals[0])
        else {
            throw UsageError("name one shell: \(ShellCompletion.shells.joined(separator: ", "))")
        }
        context.output.send(laidOut: script)
        return ExitCode.success
    }

    static let complete = Command(
        "__complete", arguments: "chats|folders|models|instances",
        summary: "Print the names a completion script offers, one a line.", isHidden: true
    ) { arguments, context in
        guard arguments.positionals.count == 1, let source = ShellCompletion.Source(rawValue: arguments.positionals[0])
        else {
            throw UsageError("name one of chats, folders, models, instances")
        }
        let names: [String]
        switch source {
        case .chats:
            names = try context.openLibrary().conversations(limit: 500).map(\.title)
        case .folders:
            let library = try context.openLibrary()
            names = try library.folderPaths().values.sorted()
        case .models:
            names =
                context.configuration.aliases.keys.sorted()
                + (try await context.session().models().filter(\.canChat).map(\.key))
        case .instances:
            names = try await context.session().models().flatMap { $0.loadedInstances.map(\.id) }
        case .files, .shells:
            names = []
        }
        // A name is offered as it would print anywhere else: with its control characters made inert (a tab, which
        // would split the word in a shell's list, and a newline, which would split the line, leave it out).
        for name in names where !name.isEmpty && !name.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\t" }) {
            context.output.line("\(name)")
        }
        return ExitCode.success
    }
}
