import Markdown

/// Renders a whole Markdown text at once; the reference that streamed output must match.
public struct MarkdownRenderer: Sendable {
    /// The terminal rendered for.
    public var capabilities: TerminalCapabilities
    /// Markdown or raw text.
    public var mode: MarkdownMode

    /// Creates a renderer for `capabilities` in `mode`.
    public init(capabilities: TerminalCapabilities, mode: MarkdownMode = .auto) {
        self.capabilities = capabilities
        self.mode = mode
    }

    /// The rendered lines of `text`, without line terminators; every line ends with styles reset.
    public func lines(_ text: String) -> [String] {
        let clean = UntrustedText.sanitize(text)
        guard mode.rendersMarkdown(on: capabilities) else { return rawLines(clean) }
        var references = LinkReferences()
        let blocks = references.parse(clean)
        references.record(Substring(clean), blocks: blocks, through: Int.max)
        var footnotes = FootnoteLedger()
        var all = blocks.map(\.block) + [references.lateDefinitions()].compactMap { $0 }
        for block in all { footnotes.record(block) }
        if let undefined = footnotes.undefinedNote() { all.append(undefined) }
        return blockRenderer.lines(for: all)
    }

    /// The rendered text of `text`, each line terminated by a newline.
    public func render(_ text: String) -> String {
        lines(text).map { $0 + "\n" }.joined()
    }

    var blockRenderer: BlockRenderer {
        var renderer = BlockRenderer(
            width: capabilities.width, level: capabilities.styleLevel, unicode: capabilities.isUTF8,
            hyperlinks: capabilities.hyperlinks,
            theme: .standard(for: capabilities.background, depth: capabilities.colorDepth))
        renderer.showsFences = capabilities.showsCodeFences
        renderer.widthModel = capabilities.widthModel
        renderer.reservesLastColumn = capabilities.insideEmacs
        return renderer
    }

    func rawLines(_ clean: String) -> [String] {
        var lines = clean.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}
