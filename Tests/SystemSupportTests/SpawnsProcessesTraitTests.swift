import TestSupport
import Testing

/// The trait on suites that start child processes (`SpawnsProcesses`).
@Suite(.spawnsProcesses) struct SpawnsProcessesTraitTests {
    /// A test watching a child runs at high priority, so each wake-up when its child answers is not queued behind
    /// tests that only compute (which once let a child's 30 s stall end before the test's Ctrl-C was typed).
    @Test func aMarkedTestRunsAtHighPriority() {
        #expect(Task.currentPriority == .high)
    }
}
