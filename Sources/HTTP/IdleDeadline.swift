/// When a transfer's server counts as silent: more than `limit` since it last sent something, not counting the
/// time the transfer spent paused (a slow consumer never reads as an idle server).
///
/// A value with no clock of its own: the transfer hands it the instants, so the rule is tested without waiting.
struct IdleDeadline: Sendable, Equatable {
    /// The longest silence allowed.
    let limit: Duration
    /// The server's last header line or body chunk, moved later by any pause since.
    private var lastActivity: ContinuousClock.Instant
    /// When the transfer paused, while it is paused.
    private var pausedSince: ContinuousClock.Instant?

    /// Starts counting at `start` (when the transfer began).
    init(limit: Duration, start: ContinuousClock.Instant) {
        self.limit = limit
        self.lastActivity = start
    }

    /// The server sent something at `now`: the silence starts over.
    mutating func activity(at now: ContinuousClock.Instant) {
        lastActivity = now
        if pausedSince != nil { pausedSince = now }
    }

    /// The transfer stopped reading at `now`; the silence stops growing until ``resume(at:)``.
    mutating func pause(at now: ContinuousClock.Instant) {
        if pausedSince == nil { pausedSince = now }
    }

    /// The transfer reads again at `now`; the silence goes on from where the pause left it.
    mutating func resume(at now: ContinuousClock.Instant) {
        guard let pausedSince else { return }
        lastActivity += now - pausedSince
        self.pausedSince = nil
    }

    /// How long the server has been silent at `now`, paused time left out.
    func silence(at now: ContinuousClock.Instant) -> Duration {
        (pausedSince ?? now) - lastActivity
    }

    /// Whether the silence at `now` is longer than the limit.
    func hasPassed(at now: ContinuousClock.Instant) -> Bool {
        silence(at: now) > limit
    }
}
