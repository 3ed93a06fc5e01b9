import TerminalMarkdown
import Testing

@testable import Console

/// Usage lines are made from the options a command declares, so `/help`, a slash command's usage error and (in
/// CLITests' UsageLineTests, through the built executable) `llmster NAME --help` name every option the command takes
/// (`chats --limit`, `ask --fresh-context` and `/load`'s load options were missing when they were written by hand).
@Suite struct CommandSynopsisTests {
    @Test(arguments: ReplCommands.all.map(\.name))
    func theSlashCommandsUsageNamesEveryOption(command name: String) throws {
        let command = try #require(ReplCommands.all.first { $0.name == name })
        let missing = Self.missing(command.parser.options, from: command.synopsis)
        #expect(missing.isEmpty, "/\(name)'s usage line leaves out \(missing)")
    }

    @Test func formsExclusiveGroupsRepeatableOptionsAndChoicesReadAsUsage() {
        let parser = ArgumentParser([
            .init([.model], short: "m", value: "MODEL", help: "model"),
            .init([.continue], short: "c", value: "CHAT", optionalValue: true, help: "continue"),
            .init([.chat], value: "CHAT", help: "chat"),
            .init([.file], short: "f", value: "FILE", repeatable: true, help: "file"),
            .init([.sort], value: "KEY", choices: ["name", "size"], help: "sort"),
            .init([.freshContext], value: "MODE", optionalValue: true, choices: ["empty", "recap"], help: "fresh"),
            .init([.all], help: "all"),
            .init([.help], short: "h", help: "help")
        ])
        #expect(
            parser.synopsis(arguments: "[PROMPT…]", exclusive: [[.continue, .chat]])
                == "[PROMPT…] [-m MODEL] [-c | --chat CHAT] [-f FILE]… [--sort name|size] [--fresh-context[=empty|recap]] [--all]"
        )
        #expect(
            parser.synopsis(arguments: "", forms: [UsageForm("ITEM…", [.sort]), UsageForm(required: [.all], [.model])])
                == "ITEM… [--sort name|size] | --all [-m MODEL]")
    }

    @Test func aLongUsageWrapsBetweenItsBracketedGroups() {
        let lines = TextLayout.usage(
            "usage: /load", "[KEY] [--context-length N] [--flash-attention on|off] [--offload-kv-cache-to-gpu on|off]",
            width: 50, fit: TextFit())
        #expect(lines.count > 1)
        // Continuations start under the synopsis, each a whole group.
        for line in lines.dropFirst() { #expect(line.hasPrefix("             [") && line.hasSuffix("]"), "\(lines)") }
    }

    /// The options whose long and short names are both absent from `synopsis`, read as whole words (`-f` is not
    /// found inside `--folder`).
    private static func missing(_ options: [ArgumentParser.Option], from synopsis: String) -> [String] {
        let words = Set(
            synopsis.split(whereSeparator: { " []|…".contains($0) }).map { $0.split(separator: "=")[0] }.map(
                String.init))
        return options.filter { option in
            option.names != ["help"] && !option.names.contains { words.contains("--" + $0) }
                && !(option.short.map { words.contains("-\($0)") } ?? false)
        }.map { "--" + $0.names[0] }
    }
}
