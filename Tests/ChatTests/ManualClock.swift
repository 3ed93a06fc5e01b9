import Chat
import Synchronization

/// A `DisplayClock` that moves only when a test advances it; sleepers wake when their deadline is reached.
final class ManualClock: DisplayClock {
    private struct State {
        var now: Duration = .zero
        var sleepers: [(deadline: Duration, continuation: CheckedContinuation<Void, any Error>)] = []
    }

    private let state = Mutex(State())
    /// Signals each time a task starts sleeping, so a test can wait for the timer to be armed.
    let sleeperArrived: AsyncStream<Void>
    private let arrival: AsyncStream<Void>.Continuation

    init() {
        (sleeperArrived, arrival) = AsyncStream.makeStream()
    }

    func now() -> Duration { state.withLock { $0.now } }

    func sleep(until deadline: Duration) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let resumeNow = state.withLock { state -> Bool in
                if deadline <= state.now { return true }
                state.sleepers.append((deadline, continuation))
                return false
            }
            if resumeNow { continuation.resume() } else { arrival.yield() }
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come.
    func advance(by duration: Duration) {
        let due = state.withLock { state in
            state.now += duration
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }
}
