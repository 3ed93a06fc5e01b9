/// Whether replies are rendered as Markdown or shown as their raw (sanitised) text.
public enum MarkdownMode: String, Sendable, CaseIterable {
    /// Render when the output is a terminal, raw text otherwise.
    case auto
    /// Always render.
    case always
    /// Never render: raw text, still sanitised.
    case never

    /// Whether Markdown is rendered for output with `capabilities`.
    public func rendersMarkdown(on capabilities: TerminalCapabilities) -> Bool {
        switch self {
        case .auto: return capabilities.isTTY
        case .always: return true
        case .never: return false
        }
    }
}

extension TerminalCapabilities {
    var styleLevel: StyleLevel { allowsColor ? .color : allowsStyles ? .attributes : .plain }
}
