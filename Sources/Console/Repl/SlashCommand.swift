import Chat

/// One REPL command such as `/model KEY`: its usage, options and what it does.
struct SlashCommand: Sendable {
    /// The name after the slash.
    let name: String
    /// The arguments as `/help` shows them, e.g. `[CHAT] FOLDER`.
    let synopsis: String
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

    /// Declares a command.
    init(
        _ name: String, _ synopsis: String = "", _ summary: String, options: [ArgumentParser.Option] = [],
        takesText: Bool = false, argument: SlashArgument = .none,
        run: @escaping @ReplActor @Sendable (ArgumentParser.Parsed, ReplSession) async throws -> Void
    ) {
        self.name = name
        self.synopsis = synopsis
        self.summary = summary
        self.parser = ArgumentParser(options)
        self.takesText = takesText
        self.argument = argument
        self.run = run
    }

    /// `usage: /name synopsis`.
    var usageLine: String { "usage: /\(name)\(synopsis.isEmpty ? "" : " " + synopsis)" }
}
