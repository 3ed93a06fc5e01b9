import Foundation
import TerminalMarkdown

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
    public init(
        _ name: String, synopsis: String, summary: String, details: String = "",
        options: [ArgumentParser.Option] = [], isHidden: Bool = false,
        run: @escaping @Sendable (ArgumentParser.Parsed, CommandContext) async throws -> Int32
    ) {
        self.name = name
        self.synopsis = synopsis
        self.summary = summary
        self.details = details
        self.parser = ArgumentParser(options + [.init([.help], short: "h", help: "show this help")])
        self.isHidden = isHidden
        self.run = run
    }

    /// The text of `llmster NAME --help`, wrapped to `width` columns.
    public func help(width: Int, fit: TextFit) -> String {
        let term = "usage: llmster \(name)"
        // A bracketed group (`[--image FILE]…`) breaks only around it: its spaces are no-break spaces while wrapping.
        var depth = 0
        let grouped = String(
            synopsis.map { character -> Character in
                if character == "[" { depth += 1 } else if character == "]" { depth -= 1 }
                return character == " " && depth > 0 ? "\u{A0}" : character
            })
        var text =
            TextLayout.hanging(
                term, grouped, column: term.count + 1, width: width, gap: 1, maximumColumn: width / 2, fit: fit
            )
            .replacingOccurrences(of: "\u{A0}", with: " ") + "\n\n"
        text +=
            TextLayout.paragraphs(summary, width: width, fit: fit) + "\n\noptions:\n"
            + parser.optionHelp(width: width, fit: fit) + "\n"
        text +=
            TextLayout.paragraphs("Global options (llmster --help) are accepted here too.", width: width, fit: fit)
            + "\n"
        if !details.isEmpty { text += "\n" + TextLayout.paragraphs(details, width: width, fit: fit) + "\n" }
        return text
    }

    /// The one-line usage shown after a usage error.
    public var usageLine: String { "usage: llmster \(name)\(synopsis.isEmpty ? "" : " " + synopsis)" }
}
