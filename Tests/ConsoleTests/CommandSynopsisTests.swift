import Testing

@testable import Console

/// The usage line of `llmster NAME --help` names every option the command takes, so none is found only by reading
/// the option list (`chats --limit`, `ask --fresh-context` were missing).
@Suite struct CommandSynopsisTests {
    @Test(arguments: App.commands.filter { !$0.isHidden }.map(\.name))
    func theUsageLineNamesEveryOption(command name: String) throws {
        let command = try #require(App.commands.first { $0.name == name })
        let missing = command.parser.options.filter { option in
            option.names != ["help"] && !option.names.contains { command.synopsis.contains("--" + $0) }
                && !(option.short.map { command.synopsis.contains("-\($0)") } ?? false)
        }
        #expect(missing.isEmpty, "llmster \(name)'s usage line leaves out \(missing.map { "--" + $0.names[0] })")
    }
}
