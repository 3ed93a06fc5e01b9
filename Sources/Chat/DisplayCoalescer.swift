import LMStudio

/// Accumulates a reply's events and hands out its updates in batches, at most one batch per interval.
///
/// One consumer pulls with `next()`. The first batch goes out at once; later ones wait for the interval,
/// except the rest of an append too long for one batch (``batchTextBytes``).
/// While the consumer is busy or the interval runs, new updates are merged into the pending batch
/// (adjacent appends concatenated, adjacent stage changes and changes of one tool call latest-wins), so a
/// slow consumer never works through stale versions and never loses text. The end flushes at once.
public actor DisplayCoalescer {
    private let interval: Duration
    private let clock: any DisplayClock
    private var accumulator = ReplyAccumulator()
    /// Merged updates not yet handed out.
    private var pending: [ReplyUpdate] = []
    /// The trailing append, kept apart so it grows without a copy of its own.
    private var openAppend: OpenAppend?
    private var lastPublished: Duration?
    private var waiter: CheckedContinuation<[ReplyUpdate]?, Never>?
    private var timer: Task<Void, Never>?
    private var closed = false
    private var finished = false
    /// The last batch left appended text behind; the next one is due at once.
    private var backlog = false
    /// The most appended text one batch copies out while the reply streams: a reply arriving faster than the
    /// consumer takes it is handed out in pieces, back to back, rather than copied whole beside itself.
    public static let batchTextBytes = 1 << 20

    /// Creates a coalescer publishing at most once per `interval`.
    public init(interval: Duration = .milliseconds(250), clock: any DisplayClock = SystemDisplayClock()) {
        self.interval = interval
        self.clock = clock
    }

    /// The full reply state, reasoning included.
    public var state: ReplyState { accumulator.state }

    /// Applies an event at the clock's current instant and queues what it changed.
    public func apply(_ event: ChatEvent) {
        guard !closed else { return }
        // The final event may rewrite the text the open append points into.
        if case .chatEnd = event { openAppend?.detach(from: accumulator.state) }
        var ends = textEnds
        for update in accumulator.apply(event, at: clock.now()) { merge(update, ends: &ends) }
        wake()
    }

    /// Stops taking events and closes a reasoning span still open; returns the final reply state.
    public func close() -> ReplyState {
        if !closed {
            closed = true
            var ends = textEnds
            for update in accumulator.close(at: clock.now()) { merge(update, ends: &ends) }
        }
        return accumulator.state
    }

    /// Queues the end (after closing, if not done yet) and hands everything out at once; `next()` then returns nil.
    public func finish(_ end: ReplyEnd) {
        guard !finished else { return }
        _ = close()
        var ends = textEnds
        merge(.ended(end), ends: &ends)
        finished = true
        timer?.cancel()
        timer = nil
        wake()
    }

    /// The next batch of updates, waiting as long as the interval asks; nil after the end was handed out.
    public func next() async -> [ReplyUpdate]? {
        switch take() {
        case .batch(let batch): return batch
        case .end: return nil
        case .wait:
            return await withCheckedContinuation { continuation in
                waiter = continuation
                armTimer()
            }
        }
    }

    private enum Take {
        case batch([ReplyUpdate])
        case end
        case wait
    }

    private var hasPending: Bool { !pending.isEmpty || openAppend != nil }

    private func take() -> Take {
        guard hasPending else { return finished ? .end : .wait }
        let now = clock.now()
        if !finished, !backlog, let last = lastPublished, now < last + interval { return .wait }
        backlog = false
        if !finished, var open = openAppend, open.range.count > Self.batchTextBytes {
            let text = open.takePrefix(atMost: Self.batchTextBytes, in: accumulator.state)
            pending.append(open.reasoning ? .reasoningAppended(text) : .answerAppended(text))
            openAppend = open
            backlog = true
        } else {
            sealAppend()
        }
        let batch = pending
        pending = []
        lastPublished = now
        return .batch(batch)
    }

    /// Hands a due batch (or the end) to a waiting consumer, else makes sure the timer will.
    private func wake() {
        guard let waiter else { return }
        switch take() {
        case .batch(let batch):
            self.waiter = nil
            waiter.resume(returning: batch)
        case .end:
            self.waiter = nil
            waiter.resume(returning: nil)
        case .wait:
            armTimer()
        }
    }

    private func armTimer() {
        guard timer == nil, !finished, hasPending, let last = lastPublished else { return }
        let due = last + interval
        timer = Task { [clock] in
            do { try await clock.sleep(until: due) } catch { return }
            self.timerFired()
        }
    }

    private func timerFired() {
        timer = nil
        wake()
    }

    /// The UTF-8 lengths of the answer and the reasoning so far, where the next appends start.
    private var textEnds: (answer: Int, reasoning: Int) {
        (accumulator.state.answer.utf8.count, accumulator.state.reasoning.utf8.count)
    }

    /// Merges `update`, whose appended text (if any) starts at `ends` in the accumulator's state; advances `ends` past it.
    private func merge(_ update: ReplyUpdate, ends: inout (answer: Int, reasoning: Int)) {
        switch update {
        case .answerAppended(let text), .reasoningAppended(let text):
            let reasoning = if case .reasoningAppended = update { true } else { false }
            let start = reasoning ? ends.reasoning : ends.answer
            let end = start + text.utf8.count
            if reasoning { ends.reasoning = end } else { ends.answer = end }
            if let open = openAppend, open.reasoning == reasoning, open.detached == nil, open.range.upperBound == start {
                openAppend?.range = open.range.lowerBound..<end
            } else {
                sealAppend()
                openAppend = OpenAppend(reasoning: reasoning, range: start..<end)
            }
            return
        case .answerReplaced(let text):
            ends.answer = text.utf8.count
            sealAppend()
        case .reasoningReplaced(let text):
            ends.reasoning = text.utf8.count
            sealAppend()
        default:
            sealAppend()
        }
        switch (pending.last, update) {
        case (.stageChanged?, .stageChanged):
            pending[pending.count - 1] = update
        case (.toolCallChanged(let previous, _)?, .toolCallChanged(let index, _)) where previous == index:
            pending[pending.count - 1] = update
        default:
            pending.append(update)
        }
    }

    /// Moves the growing append into `pending`.
    private func sealAppend() {
        guard let append = openAppend else { return }
        openAppend = nil
        let text = append.text(in: accumulator.state)
        pending.append(append.reasoning ? .reasoningAppended(text) : .answerAppended(text))
    }
}

/// Appended text not yet handed out: a UTF-8 range of the reply's answer or reasoning (of the text as it was
/// before `chat.end`, once detached), so a reply arriving faster than the interval is not held twice.
private struct OpenAppend {
    let reasoning: Bool
    var range: Range<Int>
    /// The text the range points into, kept (not copied) when `chat.end` may replace the state's.
    var detached: String?

    init(reasoning: Bool, range: Range<Int>) {
        self.reasoning = reasoning
        self.range = range
    }

    /// The appended text, its range read from the detached text or else from `state`.
    func text(in state: ReplyState) -> String {
        let utf8 = (detached ?? (reasoning ? state.reasoning : state.answer)).utf8
        let start = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
        return String(decoding: utf8[start..<utf8.index(start, offsetBy: range.count)], as: UTF8.self)
    }

    /// The first `count` bytes of the appended text or a little fewer (cut at a character boundary); the range
    /// moves past them.
    mutating func takePrefix(atMost count: Int, in state: ReplyState) -> String {
        let utf8 = (detached ?? (reasoning ? state.reasoning : state.answer)).utf8
        let start = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
        let endIndex = utf8.characterBoundary(atOrBefore: utf8.index(utf8.startIndex, offsetBy: min(range.lowerBound + count, range.upperBound)),
                                              notBefore: start)
        let end = utf8.distance(from: utf8.startIndex, to: endIndex)
        let text = String(decoding: utf8[start..<endIndex], as: UTF8.self)
        range = end..<range.upperBound
        return text
    }

    /// Keeps the text the range points into before `chat.end` may replace it; a reference, not a copy, while
    /// the state's text stays the same.
    mutating func detach(from state: ReplyState) {
        detached = reasoning ? state.reasoning : state.answer
    }
}
