import Markdown

/// Renders a reply that arrives as successive snapshots of its whole text, printing each finished block once and
/// redrawing only the in-progress tail.
///
/// Call `update(_:)` with the whole answer so far on every snapshot and `finish(_:)` once with the final text
/// (complete, cancelled or failed); afterwards the screen shows what `MarkdownRenderer.render` shows for that
/// text, the cursor at the start of the line below (a link reference defined after its use stays as written in
/// both, its URL listed at the end: see `LinkReferences`). Confined to one thread or actor.
public final class StreamRenderer<Sink: TerminalSink> {
    /// Where output goes; tests read a `StringSink` back from here.
    public var sink: Sink
    private var stream: MarkdownStream
    private var area: LiveArea

    /// Creates a renderer writing to `sink` for a terminal with `capabilities`.
    public init(sink: Sink, capabilities: TerminalCapabilities, mode: MarkdownMode = .auto) {
        self.sink = sink
        let reference = MarkdownRenderer(capabilities: capabilities, mode: mode)
        stream = MarkdownStream(
            renderer: reference.blockRenderer, rendersMarkdown: mode.rendersMarkdown(on: capabilities))
        area = LiveArea(capabilities: capabilities)
    }

    /// Terminal columns; a change (after SIGWINCH) applies to everything rendered afterwards.
    public var width: Int {
        get { stream.renderer.width }
        set { stream.renderer.width = max(newValue, 2) }
    }

    /// Terminal rows; the tail shows at most `height − 1` of them.
    public var height: Int {
        get { area.height }
        set { area.height = max(newValue, 2) }
    }

    /// Rows the live tail occupies now (the cursor is on the last of them); committed rows are above.
    public var liveRows: Int { area.rows }

    /// Shows the snapshot `text`: prints newly finished blocks and redraws the tail.
    public func update(_ text: String) {
        let (committed, tail) = stream.update(text, showingRows: area.shownRows)
        area.update(committed: committed, live: tail, sink: &sink)
        sink.flush()
    }

    /// Flushes the final `text`: the tail is replaced by its final rendering and nothing stays live.
    public func finish(_ text: String) {
        let committed = stream.finish(text)
        area.update(committed: committed, live: [], sink: &sink)
        sink.flush()
    }
}
