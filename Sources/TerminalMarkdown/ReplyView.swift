/// What a reply is drawn with from successive `ReplySnapshot`s: `LiveReplyView` on a full terminal,
/// `LineModeReplyView` on a line-mode front end (`TerminalCapabilities.isLineMode`).
public protocol ReplyView: AnyObject {
    /// Columns; applies to everything drawn afterwards.
    var width: Int { get set }
    /// Rows.
    var height: Int { get set }
    /// Shows `snapshot`; after a finished snapshot further updates do nothing.
    func update(_ snapshot: ReplySnapshot)
    /// Shows `snapshot`, whose answer replaces `previous` (the server's final answer differs from what streamed).
    func update(_ snapshot: ReplySnapshot, replacingAnswer previous: String)
}

extension LiveReplyView: ReplyView {}

extension LineModeReplyView: ReplyView {}

/// The view for a reply on `capabilities`: appended lines on a line-mode front end, the live area elsewhere.
public func replyView<Sink: TerminalSink>(sink: Sink, capabilities: TerminalCapabilities, mode: MarkdownMode,
                                          reasoningLines: Int) -> any ReplyView {
    capabilities.isLineMode
        ? LineModeReplyView(sink: sink, capabilities: capabilities, mode: mode)
        : LiveReplyView(sink: sink, capabilities: capabilities, mode: mode, reasoningLines: reasoningLines)
}
