/// The interactive chat REPL.
enum Repl {
    /// Runs the REPL until the user quits; returns the exit status.
    static func run(context: CommandContext) async -> Int32 {
        context.errors.line("llmster: the REPL is not available in this build; use `llmster ask`.")
        return ExitCode.failure
    }
}
