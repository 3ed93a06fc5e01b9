import Foundation

/// Lets pauses (stalls, slow loads, token delays) end early when the simulator stops.
///
/// `@unchecked Sendable`: `stopped` is read and written only with `condition` locked.
final class StopSignal: @unchecked Sendable {
    private let condition = NSCondition()
    private var stopped = false

    /// Waits `seconds` or until `stop`; false when stopped.
    func pause(_ seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !stopped, condition.wait(until: deadline) {}
        return !stopped
    }

    /// Wakes every pause and makes later ones return at once.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Allows pauses again after a restart.
    func rearm() {
        condition.lock()
        stopped = false
        condition.unlock()
    }
}
