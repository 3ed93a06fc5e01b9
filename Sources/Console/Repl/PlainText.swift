import TerminalMarkdown

/// Markdown as the plain text a reader sees (no `**`, backticks or list syntax, no styles), for one-line previews and
/// desktop notifications, which show text as it is.
enum PlainText {
    /// The rendered text of `markdown`, its lines joined by spaces.
    static func of(_ markdown: String) -> String {
        lines(of: markdown).joined(separator: " ")
    }

    /// The first line of text `markdown` shows.
    static func firstLine(of markdown: String) -> String {
        lines(of: markdown).first ?? ""
    }

    private static func lines(of markdown: String) -> [String] {
        let capabilities = TerminalCapabilities(isDumb: true, width: 10_000)
        return MarkdownRenderer(capabilities: capabilities, mode: .always).render(markdown)
            .split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }
}
