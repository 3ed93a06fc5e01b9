/// Shows one reply in the terminal from successive `ReplySnapshot`s: the whole live area and what it commits.
///
/// While waiting, the live area is the stage line (replaced in place). While reasoning streams, it is a dim tail
/// of the reasoning's last `reasoningLines` rows. When the answer starts, the reasoning collapses into one
/// committed summary line and the live area becomes the Markdown tail of the answer (see `StreamRenderer`).
/// Each finished tool call is committed as one line, once, in the server's order: the reasoning summary and the
/// answer text that came before it are committed first (that text ends a part, so its last block is final). When the snapshot says the reply is finished, the
/// answer is flushed, a dim stats line (with "incomplete" marked) is committed and the live area is empty, the
/// cursor at the start of the line below. Lines above the live area are never touched; on a terminal without
/// cursor movement nothing is live and only committed lines are appended.
///
/// The caller keeps one `ReplySnapshot` current from the reply's updates and calls `update(_:)` after each, or gives
/// the answer piece by piece with `update(_:appendingAnswer:)` and keeps none of it (the view itself holds only the
/// text not committed yet); the last snapshot has `isFinished` set, or `stop(_:)` ends a cancelled reply where it
/// is; in a cancelled task an unfinished snapshot is rendered but not drawn. When the server rewrote the answer,
/// `update(replacingAnswer:)` (or `replaceAnswer(with:)` and appending the rest) redraws it. Call `update` again
/// after a resize (set `width`/`height` first) to redraw the tail. Confined to one thread or actor.
public final class LiveReplyView<Sink: TerminalSink> {
    /// Where output goes.
    public var sink: Sink
    /// Rows of the reasoning tail.
    public let reasoningLines: Int
    private var presenter: ReplyPresenter
    private var stream: MarkdownStream
    private var area: LiveArea
    private let rendersMarkdown: Bool
    private var pendingNote: [String] = []
    private var printedToolCalls = 0
    private var reasoningCollapsed = false
    private var finished = false

    /// Creates a view writing to `sink` for a terminal with `capabilities`.
    public init(sink: Sink, capabilities: TerminalCapabilities, mode: MarkdownMode = .auto, reasoningLines: Int = 3) {
        self.sink = sink
        self.reasoningLines = reasoningLines
        presenter = ReplyPresenter(capabilities: capabilities)
        let reference = MarkdownRenderer(capabilities: capabilities, mode: mode)
        rendersMarkdown = mode.rendersMarkdown(on: capabilities)
        stream = MarkdownStream(renderer: reference.blockRenderer, rendersMarkdown: rendersMarkdown)
        area = LiveArea(capabilities: capabilities)
    }

    /// Terminal columns; applies to everything drawn afterwards.
    public var width: Int {
        get { presenter.width }
        set {
            presenter.width = max(newValue, 2)
            stream.renderer.width = max(newValue, 2)
            area.resize(width: max(newValue, 2))
        }
    }

    /// Terminal rows; the live area shows at most `height − 1` of them.
    public var height: Int {
        get { area.height }
        set { area.height = max(newValue, 2) }
    }

    /// Rows the live area occupies now.
    public var liveRows: Int { area.rows }

    /// Shows `snapshot`, whose answer is the server's final answer, which differs from what streamed.
    ///
    /// When the lines already committed still read the same, only the live tail is redrawn; otherwise a dim note is
    /// committed and the final answer is shown in full below it.
    public func update(replacingAnswer snapshot: ReplySnapshot) {
        let taken = replaceAnswer(with: snapshot.answer)
        update(snapshot, appendingAnswer: String(Substring(snapshot.answer.utf8.dropFirst(taken))))
    }

    /// Replaces the answer by the server's final `text` without drawing; returns the UTF-8 length of its start the
    /// view has taken (what was committed, when it still reads the same; else nothing, and a dim note will go
    /// above the answer shown anew), so the caller appends the rest, in as many steps as it likes.
    public func replaceAnswer(with text: String) -> Int {
        guard !finished else { return text.utf8.count }
        let committed = stream.committedBytes
        if text.utf8.count >= committed,
            stream.replace(with: String(decoding: text.utf8.prefix(committed), as: UTF8.self))
        {
            return committed
        }
        pendingNote = ["", presenter.replacementNote()]
        stream = MarkdownStream(renderer: stream.renderer, rendersMarkdown: rendersMarkdown)
        return 0
    }

    /// Shows `snapshot`, whose answer is the whole answer so far; after a finished snapshot further updates do nothing.
    public func update(_ snapshot: ReplySnapshot) {
        guard !finished else { return }
        let utf8 = snapshot.answer.utf8
        if utf8.count > stream.receivedBytes {
            stream.receive(String(Substring(utf8[utf8.index(utf8.startIndex, offsetBy: stream.receivedBytes)...])))
        }
        present(snapshot)
    }

    /// Shows `snapshot` with `text` appended to the answer; the snapshot's own `answer` is not looked at, so the
    /// caller need not keep the answer at all.
    public func update(_ snapshot: ReplySnapshot, appendingAnswer text: String) {
        guard !finished else { return }
        stream.receive(text)
        present(snapshot)
    }

    /// Ends the reply where drawing stopped (it was cancelled): the live rows stay as they are, undrawn answer text is
    /// dropped, and only the end line is added below them.
    public func stop(_ snapshot: ReplySnapshot) {
        guard !finished else { return }
        finished = true
        let stats = presenter.statsLine(snapshot.stats, outcome: snapshot.outcome)
        area.leave(committed: stats.isEmpty ? [] : [stats], sink: &sink)
        sink.flush()
    }

    private func present(_ snapshot: ReplySnapshot) {
        var committed = pendingNote
        pendingNote = []
        let received = stream.receivedBytes
        for call in snapshot.finishedToolCalls.dropFirst(printedToolCalls) {
            // The text before the call is not drawn yet: its line waits for it.
            guard call.answerOffset <= received || snapshot.isFinished else { break }
            if !reasoningCollapsed && snapshot.reasoningCharacterCount > 0 {
                committed.append(
                    presenter.reasoningSummary(
                        seconds: snapshot.reasoningSeconds,
                        characterCount: snapshot.reasoningCharacterCount))
                reasoningCollapsed = true
            }
            if call.answerOffset > stream.committedBytes {
                committed += stream.finish(through: call.answerOffset)
            }
            committed.append(presenter.toolCallLine(call))
            printedToolCalls += 1
        }

        let answering = stream.receivedBytes > 0 || snapshot.isFinished
        if answering && !reasoningCollapsed && snapshot.reasoningCharacterCount > 0 {
            committed.append(
                presenter.reasoningSummary(
                    seconds: snapshot.reasoningSeconds,
                    characterCount: snapshot.reasoningCharacterCount))
            reasoningCollapsed = true
        }

        var live: [String] = []
        if snapshot.isFinished {
            committed += stream.finish()
            let stats = presenter.statsLine(snapshot.stats, outcome: snapshot.outcome)
            if !stats.isEmpty { committed.append(stats) }
            finished = true
        } else if answering {
            let (answerCommitted, tail) = stream.update(showingRows: area.shownRows)
            committed += answerCommitted
            live = tail
        } else if !snapshot.reasoning.isEmpty {
            live = presenter.reasoningTail(snapshot.reasoning, lineCount: reasoningLines)
        } else if let stage = snapshot.stage {
            live = [presenter.stageLine(stage, elapsedSeconds: snapshot.elapsedSeconds)]
        }
        // A tool call being prepared or running shows below what is there so far, its time ticking.
        if !snapshot.isFinished, let stage = snapshot.stage, stage.isToolCall, answering || !snapshot.reasoning.isEmpty
        {
            live.append(presenter.stageLine(stage, elapsedSeconds: snapshot.elapsedSeconds))
        }
        // Cancelled while this snapshot rendered (Ctrl-C during a backlog): its lines are not written, so the screen
        // stays as it was for `stop(_:)` and nothing but the end line follows the signal; cancelled while its lines
        // are written, the area stops after the piece being written.
        if Task.isCancelled && !snapshot.isFinished { return }
        area.update(committed: committed, live: live, sink: &sink, stopsOnCancellation: !snapshot.isFinished)
        sink.flush()
    }
}
