/// One `llmster` subcommand: its usage, options and what it does.
public struct Command: Sendable {
    public let name: String
    /// The words after `llmster NAME` in the synopsis, e.g. `MODEL [--context-length N]`.
    public let synopsis: String
    public let summary: String
    /// More help shown by `llmster NAME --help`, after the options.
    public let details: String
    public let parser: ArgumentParser
    /// Whether `--help` and completion scripts leave the command out (`__complete`, which the scripts call).
    public let isHidden: Bool
    public let run: @Sendable (ArgumentParser.Parsed, CommandContext) async throws -> Int32

    /// Declares a command; `--help` is added to its options.
    public init(_ name: String, synopsis: String, summary: String, details: String = "",
                options: [ArgumentParser.Option] = [], isHidden: Bool = false,
                run: @escaping @Sendable (ArgumentParser.Parsed, CommandContext) async throws -> Int32) {
        self.name = name
        self.synopsis = synopsis
        self.summary = summary
        self.details = details
        self.parser = ArgumentParser(options + [.init(["help"], short: "h", help: "show this help")])
        self.isHidden = isHidden
        self.run = run
    }

    /// The text of `llmster NAME --help`.
    public var help: String {
        var text = "usage: llmster \(name)\(synopsis.isEmpty ? "" : " " + synopsis)\n\n\(summary)\n\noptions:\n\(parser.optionHelp)\n"
            + "Global options (llmster --help) are accepted here too.\n"
        if !details.isEmpty { text += "\n" + details + "\n" }
        return text
    }

    /// The one-line usage shown after a usage error.
    public var usageLine: String { "usage: llmster \(name)\(synopsis.isEmpty ? "" : " " + synopsis)" }
}
