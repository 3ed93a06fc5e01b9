import Foundation
import TerminalMarkdown

/// One `llmster` subcommand: its usage, options and what it does.
public struct Command: Sendable {
    public let name: String
    /// The words after `llmster NAME` in the usage line, e.g. `MODEL [--context-length N]`.
    public let synopsis: String
    /// The arguments it was declared with (those of its first form), e.g. `MODEL` or `INSTANCE…`.
    public let operands: String
    public let summary: String
    /// More help shown by `llmster NAME --help`, after the options.
    public let details: String
    public let parser: ArgumentParser
    /// Whether `--help` and completion scripts leave the command out (`__complete`, which the scripts call).
    public let isHidden: Bool
    public let run: @Sendable (ArgumentParser.Parsed, CommandContext) async throws -> Int32

    /// Declares a command; `--help` is added to its options. Its usage line is made from `arguments` and the options
    /// (see `ArgumentParser.synopsis`), so it names every option the command takes.
    public init(
        _ name: String, arguments: String = "", forms: [UsageForm]? = nil, exclusive: [[OptionName]] = [],
        summary: String, details: String = "", options: [ArgumentParser.Option] = [], isHidden: Bool = false,
        run: @escaping @Sendable (ArgumentParser.Parsed, CommandContext) async throws -> Int32
    ) {
        self.name = name
        self.summary = summary
        self.details = details
        self.parser = ArgumentParser(options + [.init([.help], short: "h", help: "show this help")])
        self.synopsis = parser.synopsis(arguments: arguments, forms: forms, exclusive: exclusive)
        self.operands = forms?.first?.arguments ?? arguments
        self.isHidden = isHidden
        self.run = run
    }

    /// The text of `llmster NAME --help`, wrapped to `width` columns.
    public func help(width: Int, fit: TextFit) -> String {
        var text = usageLine.lines(width: width, fit: fit).joined(separator: "\n") + "\n\n"
        text +=
            TextLayout.paragraphs(summary, width: width, fit: fit) + "\n\noptions:\n"
            + parser.optionHelp(width: width, fit: fit) + "\n"
        text +=
            TextLayout.paragraphs("Global options (llmster --help) are accepted here too.", width: width, fit: fit)
            + "\n"
        if !details.isEmpty { text += "\n" + TextLayout.paragraphs(details, width: width, fit: fit) + "\n" }
        return text
    }

    /// `usage: llmster NAME` and the synopsis, as `--help` and a usage error show them.
    public var usageLine: UsageLine { UsageLine(term: "usage: llmster \(name)", synopsis: synopsis) }
}
