import Chat
import Synchronization

/// A `DisplayClock` that moves only when a test advances it; sleepers wake when their deadline is reached, and a
/// cancelled sleeper throws `CancellationError` at once, as `DisplayClock` promises.
final class ManualClock: DisplayClock {
    private struct Sleeper {
        let id: Int
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Duration = .zero
        var sleepers: [Sleeper] = []
        var nextId = 0
        /// Sleepers cancelled before they were registered (the handler can run first).
        var cancelled: Set<Int> = []
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
        let id = state.withLock { state in
            defer { state.nextId += 1 }
            return state.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case wait, wake, cancel }
                let outcome = state.withLock { state -> Outcome in
                    if state.cancelled.remove(id) != nil { return .cancel }
                    if deadline <= state.now { return .wake }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return .wait
                }
                switch outcome {
                case .wake: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                case .wait: arrival.yield()
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
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
