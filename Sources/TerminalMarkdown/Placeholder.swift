/// Placeholder until the TerminalMarkdown module lands.
enum TerminalMarkdownPlaceholder {}
