import LMStudio

/// Accumulates a reply's events and publishes display snapshots at most once per interval.
///
/// The first snapshot goes out at once; later ones wait for the interval, and only the newest pending
/// snapshot is kept (the stream buffers one), so a slow consumer never works through stale versions.
/// Completion, interruption and cancellation flush at once and finish the stream.
public actor DisplayCoalescer {
    /// How much of the reasoning a snapshot carries.
    public static let reasoningPreviewLength = 4096

    /// The published snapshots; ends after the final one.
    public nonisolated let snapshots: AsyncStream<DisplaySnapshot>
    private let continuation: AsyncStream<DisplaySnapshot>.Continuation
    private let interval: Duration
    private let clock: any DisplayClock
    private var accumulator = ReplyAccumulator()
    private var lastPublished: Duration?
    private var sequence = 0
    private var pendingFlush: Task<Void, Never>?
    private var hasUnpublishedChanges = false
    private var finished = false

    /// Creates a coalescer publishing at most once per `interval`.
    public init(interval: Duration = .milliseconds(250), clock: any DisplayClock = SystemDisplayClock()) {
        (snapshots, continuation) = AsyncStream.makeStream(of: DisplaySnapshot.self, bufferingPolicy: .bufferingNewest(1))
        self.interval = interval
        self.clock = clock
    }

    /// The full reply state, reasoning included.
    public var state: ReplyState { accumulator.state }

    /// Applies an event and publishes now if the interval has passed, else schedules one publication.
    public func apply(_ event: ChatEvent) {
        guard !finished else { return }
        accumulator.apply(event)
        hasUnpublishedChanges = true
        let now = clock.now()
        guard let last = lastPublished else { return publish(.streaming, at: now) }
        let due = last + interval
        if now >= due {
            publish(.streaming, at: now)
        } else if pendingFlush == nil {
            pendingFlush = Task { [clock] in
                do { try await clock.sleep(until: due) } catch { return }
                self.flushPending()
            }
        }
    }

    /// Publishes the final snapshot at once and ends the stream; returns the full reply state.
    @discardableResult
    public func finish(_ ending: DisplaySnapshot.Ending) -> ReplyState {
        if !finished {
            pendingFlush?.cancel()
            pendingFlush = nil
            publish(ending, at: clock.now())
            finished = true
            continuation.finish()
        }
        return accumulator.state
    }

    private func flushPending() {
        pendingFlush = nil
        guard !finished, hasUnpublishedChanges else { return }
        publish(.streaming, at: clock.now())
    }

    private func publish(_ ending: DisplaySnapshot.Ending, at now: Duration) {
        let state = accumulator.state
        continuation.yield(DisplaySnapshot(
            sequence: sequence, ending: ending, stage: state.stage, answer: state.answer,
            reasoningPreview: String(state.reasoning.suffix(Self.reasoningPreviewLength)),
            reasoningCharacterCount: state.reasoningCharacterCount, toolCalls: state.toolCalls, errors: state.errors,
            stats: state.stats, modelInstanceId: state.modelInstanceId,
            loadingModelInstanceId: state.loadingModelInstanceId, isComplete: state.isComplete))
        sequence += 1
        lastPublished = now
        hasUnpublishedChanges = false
    }
}
