import LMStudio
import Library
import SystemSupport

/// Accumulates a reply's events and hands out its updates in batches, at most one batch per interval.
///
/// One consumer pulls with `next()`. The first batch goes out at once, and so does the first batch holding text (a
/// reply's first words are not held behind a progress line drawn just before); later ones wait for the interval,
/// except the rest of an append too long for one batch (``batchTextBytes``).
/// While the consumer is busy or the interval runs, new updates are merged into the pending batch
/// (adjacent appends concatenated, adjacent stage changes and changes of one tool call latest-wins), so a
/// slow consumer never works through stale versions and never loses text. The end flushes at once, its text
/// still in batches of at most ``batchTextBytes``, handed out back to back.
public actor DisplayCoalescer {
    private let interval: Duration
    private let clock: any DisplayClock
    private var accumulator = ReplyAccumulator()
    /// Merged updates not yet handed out; appended text stays a range of the reply's text until it is handed out,
    /// so a reply arriving faster than the consumer takes it is never copied whole beside itself.
    private var pending: [Pending] = []
    private var lastPublished: Duration?
    private var waiter: CheckedContinuation<[ReplyUpdate]?, Never>?
    private var timer: Task<Void, Never>?
    private var closed = false
    private var finished = false
    /// The last batch left appended text behind; the next one is due at once.
    private var backlog = false
    /// Some answer or reasoning text has been handed out.
    private var textHandedOut = false
    /// The most appended text one batch copies out: a reply arriving faster than the consumer takes it is handed
    /// out in pieces, back to back, rather than copied whole beside itself.
    public static let batchTextBytes = 1 << 20

    /// Creates a coalescer publishing at most once per `interval`.
    public init(interval: Duration = .milliseconds(250), clock: any DisplayClock = SystemDisplayClock()) {
        self.interval = interval
        self.clock = clock
    }

    /// The full reply state, reasoning included.
    public var state: ReplyState { accumulator.state }

    /// What a periodic save writes when the library holds `saved` of the reply: the state cut to a stretch of the
    /// text after it (`ReplyPersistence.Arrived(cutting:after:atMost:)`), so that the save, which runs beside the
    /// stream, keeps no reference to the answer `apply` appends to.
    func arrived(after saved: SavedLength) -> ReplyPersistence.Arrived {
        ReplyPersistence.Arrived(cutting: accumulator.state, after: saved)
    }

    /// Whether `result` as the final event would keep everything that streamed (see `ReplyAccumulator.keepsStreamed`).
    public func keepsStreamed(_ result: ChatResult) -> Bool { accumulator.keepsStreamed(result) }

    /// Applies an event at the clock's current instant and queues what it changed.
    public func apply(_ event: ChatEvent) {
        guard !closed else { return }
        // The final event may rewrite the text the open append points into.
        if case .chatEnd = event {
            for index in pending.indices {
                if case .append(var append) = pending[index] {
                    append.detach(from: accumulator.state)
                    pending[index] = .append(append)
                }
            }
        }
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

    private var hasPending: Bool { !pending.isEmpty }

    private var pendingHoldsText: Bool {
        pending.contains { if case .append = $0 { true } else { false } }
    }

    private func take() -> Take {
        guard hasPending else { return finished ? .end : .wait }
        let now = clock.now()
        if !finished, !backlog, textHandedOut || !pendingHoldsText, let last = lastPublished, now < last + interval {
            return .wait
        }
        backlog = false
        var batch: [ReplyUpdate] = []
        var budget = Self.batchTextBytes
        var taken = 0
        // Whole entries while the text fits one batch; the append that does not fit gives what fits and stays first.
        for entry in pending {
            switch entry {
            case .update(let update):
                batch.append(update)
            case .append(let append) where append.range.count <= budget:
                textHandedOut = true
                budget -= append.range.count
                batch.append(append.update(append.text(in: accumulator.state)))
            case .append(var append):
                let text = append.takePrefix(atMost: budget, in: accumulator.state)
                if !text.isEmpty {
                    batch.append(append.update(text))
                    textHandedOut = true
                }
                pending[taken] = .append(append)
                backlog = true
            }
            if backlog { break }
            taken += 1
        }
        pending.removeFirst(taken)
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
            if case .append(let open)? = pending.last, open.reasoning == reasoning, open.detached == nil,
                open.range.upperBound == start
            {
                pending[pending.count - 1] = .append(
                    OpenAppend(reasoning: reasoning, range: open.range.lowerBound..<end))
            } else {
                pending.append(.append(OpenAppend(reasoning: reasoning, range: start..<end)))
            }
            return
        case .answerReplaced(let text):
            ends.answer = text.utf8.count
        case .reasoningReplaced(let text):
            ends.reasoning = text.utf8.count
        default:
            break
        }
        switch (pending.last, update) {
        case (.update(.stageChanged)?, .stageChanged):
            pending[pending.count - 1] = .update(update)
        case (.update(.toolCallChanged(let previous, _))?, .toolCallChanged(let index, _)) where previous == index:
            pending[pending.count - 1] = .update(update)
        default:
            pending.append(.update(update))
        }
    }
}

/// One entry of a coalescer's pending batch: an update, or appended text still as a range of the reply's text.
private enum Pending {
    case update(ReplyUpdate)
    case append(OpenAppend)
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

    /// The update handing out `text`, taken from this append.
    func update(_ text: String) -> ReplyUpdate {
        reasoning ? .reasoningAppended(text) : .answerAppended(text)
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
        let endIndex = utf8.characterBoundary(
            atOrBefore: utf8.index(utf8.startIndex, offsetBy: min(range.lowerBound + count, range.upperBound)),
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
