/// What a reply is drawn with from successive `ReplySnapshot`s: `LiveReplyView` on a full terminal,
/// `LineModeReplyView` on a line-mode front end (`TerminalCapabilities.isLineMode`).
public protocol ReplyView: AnyObject {
    /// Columns; applies to everything drawn afterwards.
    var width: Int { get set }
    /// Rows.
    var height: Int { get set }
    /// Shows `snapshot` with `text` appended to the answer; after a finished snapshot further updates do nothing,
    /// and in a cancelled task an unfinished one is rendered but not drawn (unless `drawsAllWhenCancelled`).
    func update(_ snapshot: ReplySnapshot, appendingAnswer text: String)
    /// Replaces the answer by the server's final `text` without drawing; returns the UTF-8 length of its start the
    /// view keeps, so the caller appends the rest.
    func replaceAnswer(with text: String) -> Int
    /// Ends a cancelled reply: where drawing stopped, adding only the end line (or, when `drawsAllWhenCancelled`,
    /// after drawing the rest of what arrived).
    func stop(_ snapshot: ReplySnapshot)
    /// Whether everything that arrived before a cancellation is still drawn (appended lines cost little, and a
    /// line-mode reader such as Emacs's shell keeps them), rather than drawing stopping at once.
    var drawsAllWhenCancelled: Bool { get }
}

extension LiveReplyView: ReplyView {
    public var drawsAllWhenCancelled: Bool { false }
}

extension LineModeReplyView: ReplyView {
    public var drawsAllWhenCancelled: Bool { true }
}

/// The view for a reply on `capabilities`: appended lines on a line-mode front end, the live area elsewhere.
public func replyView<Sink: TerminalSink>(
    sink: Sink, capabilities: TerminalCapabilities, mode: MarkdownMode,
    reasoningLines: Int
) -> any ReplyView {
    capabilities.isLineMode
        ? LineModeReplyView(sink: sink, capabilities: capabilities, mode: mode)
        : LiveReplyView(sink: sink, capabilities: capabilities, mode: mode, reasoningLines: reasoningLines)
}
