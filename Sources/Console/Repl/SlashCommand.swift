import Chat

/// One REPL command such as `/model KEY`: its usage, options and what it does.
struct SlashCommand: Sendable {
    /// The name after the slash.
    let name: String
    /// The arguments and options as its usage line shows them, e.g. `[KEY] [--context-length N]`.
    let synopsis: String
    /// The command as `/help`'s list shows it: its arguments, and `[options]` when it has any (`/help NAME` names
    /// them), so that every command of the list has its description beside it.
    let listing: String
    /// One line for `/help`.
    let summary: String
    /// The options it accepts (none for most).
    let parser: ArgumentParser
    /// The whole rest of the line is one argument (`/system TEXT`, `/rename TITLE`), so dashes are text.
    let takesText: Bool
    /// What Tab completes after the name.
    let argument: SlashArgument
    /// Does the work; a `UsageError` prints the usage line.
    let run: @ReplActor @Sendable (ArgumentParser.Parsed, ReplSession) async throws -> Void

    /// Declares a command taking `arguments` (`[CHAT] FOLDER`); its usage adds the options as
    /// `ArgumentParser.synopsis` makes them from `forms` and `exclusive`.
    init(
        _ name: String, _ arguments: String = "", _ summary: String, options: [ArgumentParser.Option] = [],
        forms: [UsageForm]? = nil, exclusive: [[OptionName]] = [], takesText: Bool = false,
        argument: SlashArgument = .none,
        run: @escaping @ReplActor @Sendable (ArgumentParser.Parsed, ReplSession) async throws -> Void
    ) {
        self.name = name
        self.summary = summary
        self.parser = ArgumentParser(options)
        self.synopsis = parser.synopsis(arguments: arguments, forms: forms, exclusive: exclusive)
        self.listing = "/\(name)" + (arguments.isEmpty ? "" : " " + arguments) + (options.isEmpty ? "" : " [options]")
        self.takesText = takesText
        self.argument = argument
        self.run = run
    }

    /// `usage: /name synopsis`.
    var usageLine: UsageLine { UsageLine(term: "usage: /\(name)", synopsis: synopsis) }
}
