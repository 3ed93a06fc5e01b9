import Foundation
import Synchronization
import SystemSupport
import Testing

/// Blocking work runs on a thread of its own and hands back its result or its typed error.
@Suite struct BlockingThreadTests {
    struct Refused: Error, Equatable {}

    /// How many waits have started, shared with their threads.
    final class Blocked: Sendable { let count = Mutex(0) }

    @Test func theWorkReturnsItsResult() async {
        #expect(await BlockingThread.run("llmster-test") { 6 * 7 } == 42)
    }

    /// Many waits at once do not starve the cooperative pool: each holds a thread of its own, so a task still runs
    /// while all sixteen block (on the pool they would hold its few threads, and the probe would never run).
    @Test(.timeLimit(.minutes(1))) func manyBlockingWaitsAtOnceAllFinish() async {
        let gate = DispatchSemaphore(value: 0)
        let blocked = Blocked()
        async let waits: [Int] = withTaskGroup(of: Int.self) { group in
            for index in 0..<16 {
                group.addTask {
                    await BlockingThread.run("llmster-test-wait") {
                        blocked.count.withLock { $0 += 1 }
                        gate.wait()
                        return index
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        // Every wait has started and blocks before the probe runs.
        while blocked.count.withLock({ $0 }) < 16 { await Task.yield() }
        let stillRunning = await Task { true }.value
        for _ in 0..<16 { gate.signal() }
        let finished = await waits
        #expect(stillRunning && finished.sorted() == Array(0..<16))
    }

    @Test func aTypedErrorComesBackAsItsType() async {
        await #expect(throws: Refused()) {
            try await BlockingThread.run("llmster-test-refusal") { () throws(Refused) -> Int in throw Refused() }
        }
    }
}
