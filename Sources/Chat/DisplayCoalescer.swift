import LMStudio

/// Accumulates a reply's events and hands out its updates in batches, at most one batch per interval.
///
/// One consumer pulls with `next()`. The first batch goes out at once; later ones wait for the interval.
/// While the consumer is busy or the interval runs, new updates are merged into the pending batch
/// (adjacent appends concatenated, adjacent stage changes and changes of one tool call latest-wins), so a
/// slow consumer never works through stale versions and never loses text. The end flushes at once.
public actor DisplayCoalescer {
    private let interval: Duration
    private let clock: any DisplayClock
    private var accumulator = ReplyAccumulator()
    /// Merged updates not yet handed out, the trailing append kept apart so it grows in place.
    private var pending: [ReplyUpdate] = []
    private var openAppend: (reasoning: Bool, text: String)?
    private var lastPublished: Duration?
    private var waiter: CheckedContinuation<[ReplyUpdate]?, Never>?
    private var timer: Task<Void, Never>?
    private var closed = false
    private var finished = false

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
        for update in accumulator.apply(event, at: clock.now()) { merge(update) }
        wake()
    }

    /// Stops taking events and closes a reasoning span still open; returns the final reply state.
    public func close() -> ReplyState {
        if !closed {
            closed = true
            for update in accumulator.close(at: clock.now()) { merge(update) }
        }
        return accumulator.state
    }

    /// Queues the end (after closing, if not done yet) and hands everything out at once; `next()` then returns nil.
    public func finish(_ end: ReplyEnd) {
        guard !finished else { return }
        _ = close()
        merge(.ended(end))
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
        if !finished, let last = lastPublished, now < last + interval { return .wait }
        sealAppend()
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

    private func merge(_ update: ReplyUpdate) {
        switch update {
        case .answerAppended(let text), .reasoningAppended(let text):
            let reasoning = if case .reasoningAppended = update { true } else { false }
            if openAppend?.reasoning == reasoning {
                openAppend?.text += text
            } else {
                sealAppend()
                openAppend = (reasoning, text)
            }
            return
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
        pending.append(append.reasoning ? .reasoningAppended(append.text) : .answerAppended(append.text))
    }
}
