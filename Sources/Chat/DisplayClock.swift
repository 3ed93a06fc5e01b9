/// The engine's time source: monotonic instants as durations since an arbitrary origin.
///
/// It paces `DisplayCoalescer` and partial saves and times reasoning (`ReplyState.reasoningStartedAt`). Tests
/// substitute a clock they advance by hand, so coalescing is tested without sleeping.
public protocol DisplayClock: Sendable {
    /// The current instant.
    func now() -> Duration
    /// Returns at `deadline` or later; throws when the waiting task is cancelled.
    func sleep(until deadline: Duration) async throws
}

/// The real monotonic clock.
public struct SystemDisplayClock: DisplayClock {
    private let origin = ContinuousClock.now

    /// Creates the clock.
    public init() {}

    public func now() -> Duration { ContinuousClock.now - origin }

    public func sleep(until deadline: Duration) async throws {
        try await Task.sleep(until: origin + deadline, clock: .continuous)
    }
}
