/// Shows one reply on a line-mode front end (Emacs comint, `TERM=dumb`) from successive `ReplySnapshot`s, by
/// appending whole lines: nothing is ever redrawn, and the only escape sequences are SGR (none when plain).
///
/// The answer streams through `MarkdownStream`: each finished block is printed once, rendered. Of the block still
/// arriving, the rows that more text would not change are printed as soon as text flows past them (every row but
/// the last of a paragraph or list item, the lines of a code block), so a long block is read while it arrives;
/// when the block is finished, the rows already printed are skipped. (Should the finished block read differently,
/// as after a setext underline, it continues from the first row that differs.) A block with a `|` in it may
/// become a table, whose columns are fitted only once its rows are known: it waits for `MarkdownStream` to commit
/// it (a long table's rows are committed once their widths are fixed).
///
/// Stages are appended lines: one when the stage changes (loading a model, processing the prompt; not the bare
/// wait, and nothing in the first `stageDelay` seconds), another only when the progress moved and `stageInterval`
/// seconds passed. The reasoning is not shown
/// as it streams: one dim `▸ Reasoning…` line when it starts, then the `▸ Thought for N s` summary when the answer
/// starts. Tool calls, the stats line and a rewritten answer's note are lines as in `LiveReplyView`.
/// Confined to one thread or actor.
public final class LineModeReplyView<Sink: TerminalSink> {
    /// Seconds between two lines about the same stage.
    public static var stageInterval: Double { 3 }
    /// Seconds into the reply before the first stage line: a quick reply gets none.
    public static var stageDelay: Double { 1 }

    /// Where output goes.
    public var sink: Sink
    private var presenter: ReplyPresenter
    private var stream: MarkdownStream
    private let rendersMarkdown: Bool
    /// Screen rows, kept for `ReplyView`; line mode never fills a screen.
    public var height: Int
    /// The rows of the block in progress printed so far, without styles.
    private var printedTail: [String] = []
    /// The bytes the tail laid out when it was last rendered, and when (the reply's elapsed seconds).
    private var lastTail: (bytes: Int, seconds: Double)?
    /// The answer so far, when it is given piece by piece (`update(_:appendingAnswer:)`).
    private var answer = ""
    private var pendingNote: [String] = []
    private var printedToolCalls = 0
    private var reasoningAnnounced = false
    private var reasoningCollapsed = false
    /// The stage last printed (model and kind), its whole percent and when.
    private var shownStage: (key: String, percent: Int?, seconds: Double)?
    private var finished = false

    /// Creates a view writing to `sink` for a front end with `capabilities`.
    public init(sink: Sink, capabilities: TerminalCapabilities, mode: MarkdownMode = .auto) {
        self.sink = sink
        presenter = ReplyPresenter(capabilities: capabilities)
        let reference = MarkdownRenderer(capabilities: capabilities, mode: mode)
        rendersMarkdown = mode.rendersMarkdown(on: capabilities)
        stream = MarkdownStream(renderer: reference.blockRenderer, rendersMarkdown: rendersMarkdown)
        height = capabilities.height
    }

    /// Columns; applies to everything printed afterwards.
    public var width: Int {
        get { presenter.width }
        set {
            presenter.width = max(newValue, 2)
            stream.renderer.width = max(newValue, 2)
        }
    }

    /// Replaces the answer by the server's final `text` without printing; returns the UTF-8 length of its start the
    /// view keeps (what was committed, when it still reads the same; else nothing, and a dim note goes above the
    /// final answer, printed in full), so the caller appends the rest.
    public func replaceAnswer(with text: String) -> Int {
        guard !finished else { return text.utf8.count }
        let committed = stream.committedBytes
        let kept = String(decoding: text.utf8.prefix(committed), as: UTF8.self)
        if text.utf8.count >= committed, stream.replace(with: kept) {
            answer = kept
            lastTail = nil
            return committed
        }
        pendingNote = ["", presenter.replacementNote()]
        stream = MarkdownStream(renderer: stream.renderer, rendersMarkdown: rendersMarkdown)
        printedTail = []
        lastTail = nil
        answer = ""
        return 0
    }

    /// Shows `snapshot` with `text` appended to the answer (the snapshot's own `answer` is not looked at). Line mode
    /// keeps the answer so far: a block still arriving is printed from it row by row.
    public func update(_ snapshot: ReplySnapshot, appendingAnswer text: String) {
        guard !finished else { return }
        answer += text
        var shown = snapshot
        shown.answer = answer
        update(shown)
    }

    /// Ends a cancelled reply: everything that arrived is printed (a line-mode reader keeps it), then the end line on a
    /// line of its own, below the `^C` the terminal may have echoed after the last row.
    public func stop(_ snapshot: ReplySnapshot) {
        var shown = snapshot
        shown.answer = answer
        shown.isFinished = true
        update(shown)
    }

    /// Shows `snapshot`; after a finished snapshot further updates do nothing.
    public func update(_ snapshot: ReplySnapshot) {
        guard !finished else { return }
        var lines = pendingNote
        pendingNote = []
        let answering = !snapshot.answer.isEmpty || snapshot.isFinished
        if !answering && snapshot.reasoningCharacterCount == 0, let stage = snapshot.stage {
            lines += stageLine(stage, elapsedSeconds: snapshot.elapsedSeconds)
        }
        if !answering && snapshot.reasoningCharacterCount > 0 && !reasoningAnnounced && !reasoningCollapsed {
            lines.append(
                TextStyle(dim: true).apply((presenter.unicode ? "▸" : ">") + " Reasoning…", at: presenter.level))
            reasoningAnnounced = true
        }
        for call in snapshot.finishedToolCalls.dropFirst(printedToolCalls) {
            guard call.answerOffset <= snapshot.answer.utf8.count || snapshot.isFinished else { break }
            lines += reasoningSummary(snapshot)
            if call.answerOffset > stream.committedBytes {
                let before = String(decoding: snapshot.answer.utf8.prefix(call.answerOffset), as: UTF8.self)
                lines += unprinted(committed: stream.finish(before), tail: [], stableRows: 0)
            }
            lines.append(presenter.toolCallLine(call))
            printedToolCalls += 1
        }
        if answering { lines += reasoningSummary(snapshot) }
        if snapshot.isFinished {
            lines += unprinted(committed: stream.finish(snapshot.answer), tail: [], stableRows: 0)
            let stats = presenter.statsLine(snapshot.stats, outcome: snapshot.outcome)
            // A cancelled reply's end line goes below a blank one: Ctrl-C may have left `^C` after the last row.
            if !stats.isEmpty { lines += snapshot.outcome == .cancelled ? ["", stats] : [stats] }
            finished = true
        } else if answering {
            let committed = stream.commit(snapshot.answer)
            let tail = renderedTail(at: snapshot.elapsedSeconds) ?? []
            lines += unprinted(
                committed: committed, tail: tail, stableRows: stableRows(of: tail, answer: snapshot.answer))
        }
        // Unlike `LiveReplyView`, a cancelled reply goes on printing what arrived (`drawsAllWhenCancelled`).
        guard !lines.isEmpty else { return }
        var output: [UInt8] = []
        guard sink.writeLines(lines, after: &output, stoppingOnCancellation: false) else { return }
        if !output.isEmpty { sink.write(bytes: output) }
        sink.flush()
    }

    /// The reasoning's summary line, once, when there was reasoning.
    private func reasoningSummary(_ snapshot: ReplySnapshot) -> [String] {
        guard !reasoningCollapsed && snapshot.reasoningCharacterCount > 0 else { return [] }
        reasoningCollapsed = true
        return [
            presenter.reasoningSummary(
                seconds: snapshot.reasoningSeconds, characterCount: snapshot.reasoningCharacterCount)
        ]
    }

    /// A line for `stage` when it differs from the one printed, or its progress moved `stageInterval` seconds later.
    private func stageLine(_ stage: ReplyStage, elapsedSeconds: Double) -> [String] {
        let key: String
        let progress: Double?
        switch stage {
        case .waiting: return []
        case _ where elapsedSeconds < Self.stageDelay: return []
        case .loadingModel(let model, let loaded): (key, progress) = ("load " + model, loaded)
        case .processingPrompt(let processed): (key, progress) = ("prompt", processed)
        case .runningTool(let tool, let since): (key, progress) = ("tool \(tool) \(since)", nil)
        case .preparingTool(let tool, let since): (key, progress) = ("preparing \(tool) \(since)", nil)
        }
        let percent = progress.map { Int((min(max($0, 0), 1) * 100).rounded(.down)) }
        if let shownStage, shownStage.key == key,
            percent == shownStage.percent || elapsedSeconds - shownStage.seconds < Self.stageInterval
        {
            return []
        }
        shownStage = (key, percent, elapsedSeconds)
        return [presenter.stageLine(stage, elapsedSeconds: elapsedSeconds)]
    }

    /// Bytes of a tail past which it is rendered again only once they have grown by half (see `renderedTail(at:)`).
    static var longTailBytes: Int { 16 << 10 }
    /// The longest a growing tail past `longTailBytes` waits to be rendered again, in seconds of the reply.
    static var longTailInterval: Double { 2 }

    /// The tail of the block in progress, or nil while rendering it again can wait: past `longTailBytes` laid out
    /// (`MarkdownStream.tailBytes`, a paragraph inside a quote or list item included), until they have grown by half
    /// since the tail was last rendered, or `longTailInterval` has passed.
    ///
    /// Each rendering lays out (and highlights) the whole block so far, twice with the probe: at every update a line
    /// of code 64 KiB long cost 16 s in 128-byte snapshots, quadratic in its length. Growing by half each time keeps
    /// the work linear; such a block's rows are printed in bursts, at least every `longTailInterval`.
    private func renderedTail(at seconds: Double) -> [String]? {
        let bytes = stream.tailBytes
        if bytes > Self.longTailBytes, let lastTail, bytes >= lastTail.bytes,
            bytes < lastTail.bytes + lastTail.bytes / 2, seconds - lastTail.seconds < Self.longTailInterval
        {
            return nil
        }
        lastTail = (bytes, seconds)
        return stream.tail()
    }

    /// How many rows of `tail`, the block in progress for `answer`, read the same whatever comes next: those `probe`
    /// (a copy of the stream shown `answer` with one more letter) renders alike, but not the last row, into which
    /// text may still flow, nor blank rows at the end (a separator before a block that may print nothing, such as
    /// a link definition). None while the uncommitted text has a `|`: it may become a table, whose column widths
    /// are not known yet.
    private func stableRows(of tail: [String], answer: String) -> Int {
        // Only rows beyond those printed are news: without any, the probe's second render is saved.
        guard tail.count - 1 > printedTail.count,
            !answer.utf8.dropFirst(stream.committedBytes).contains(UInt8(ascii: "|"))
        else { return 0 }
        var probe = stream
        let probed = probe.update(answer + ")]x").tail
        var stable = 0
        while stable < tail.count - 1, stable < probed.count, tail[stable] == probed[stable] { stable += 1 }
        while stable > 0, Self.unstyled(tail[stable - 1]).allSatisfy({ $0 == " " }) { stable -= 1 }
        return stable
    }

    /// Of `committed` followed by the first `stableRows` rows of `tail`, the rows not printed yet (those already
    /// printed from the tail before are skipped). Remembers which rows of `tail` are printed.
    ///
    /// When the rows printed no longer match, a line still arriving may have changed its block for a moment (`-`
    /// under a paragraph reads as a setext underline until the list item's text follows): nothing more is printed
    /// until they match again or are committed; should committed rows differ, they continue from the first that does.
    private func unprinted(committed: [String], tail: [String], stableRows: Int) -> [String] {
        var matched = 0
        while matched < printedTail.count, matched < committed.count + tail.count,
            Self.unstyled(matched < committed.count ? committed[matched] : tail[matched - committed.count])
                == printedTail[matched]
        {
            matched += 1
        }
        if matched < printedTail.count && matched >= committed.count {
            printedTail.removeFirst(committed.count)
            return []
        }
        var lines = Array(committed.dropFirst(matched))
        let tailPrinted = max(matched - committed.count, 0)
        let complete = stableRows
        if complete > tailPrinted { lines += tail[tailPrinted..<complete] }
        printedTail = tail.prefix(max(complete, tailPrinted)).map { Self.unstyled($0) }
        return lines
    }

    /// `row` without its SGR sequences, for comparing rows printed with rows rendered later.
    static func unstyled(_ row: String) -> String {
        guard row.utf8.contains(0x1B) else { return row }
        var result = String.UnicodeScalarView()
        var scalars = row.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "\u{1B}" else {
                result.append(scalar)
                continue
            }
            guard scalars.next() == "[" else { continue }
            while let next = scalars.next(), !(0x40...0x7E).contains(next.value) {}
        }
        return String(result)
    }
}
