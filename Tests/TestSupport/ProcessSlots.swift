import Foundation
import Testing

/// How many tests that start child processes (llmster on a pseudo-terminal or a pipe, `rpc`, helper programs) run at
/// once; tests in the test process alone run beside them without a limit.
///
/// Such tests wait on programs that need the machine's cores themselves, and many assert what a user sees while a
/// reply is still streaming: run all at once on a small machine, the children starve one another and those waits time
/// out (all 100-odd suites at once on 2 cores, at the default priority: 8 failures; at high priority: 1). Most of
/// their time is spent waiting, so a few per core keep the cores busy: on 2 cores the Swift suite took 158 s with 2
/// slots and 134–140 s with 4 (at the default priority), and 120–124 s with 6 at high priority (280 s one test at a
/// time). The suite has grown since: 171–185 s with 6, 155–185 s (median 158 s) with 10 and 167 s with 16; with 10
/// it also passed with two busy loops taking both cores (271 s). `LLMSTER_TEST_PROCESS_SLOTS` overrides the default of
/// five slots per core, at most `maximumDefaultSlots`.
///
/// Put it on a suite or on tests, not on both: a test inside a marked suite would then wait for a second slot.
public struct SpawnsProcesses: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's own scope holds no slot: each of its test cases takes one.
        guard testCase != nil else { return try await function() }
        await ProcessSlots.shared.acquire()
        do {
            try await Self.aheadOfComputingTests(function)
        } catch {
            await ProcessSlots.shared.release()
            throw error
        }
        await ProcessSlots.shared.release()
    }

    /// Runs `function` at high priority. Tests that only compute (a 10⁵-level nesting rendered in a debug build takes
    /// seconds) hold the cooperative pool's threads while they run, and a test watching a child waits for a thread
    /// each time its child answers: at the default priority it waited behind them past the child's own timeouts (a
    /// 30 s stall was over before its Ctrl-C was typed). Its high-priority jobs run first.
    ///
    /// An unstructured task, because a task group's child asked for `.high` still ran at the default priority here
    /// (its base priority high, its current one medium); it keeps the test's task-locals, and cancelling the test
    /// cancels it.
    private static func aheadOfComputingTests(_ function: @Sendable () async throws -> Void) async throws {
        // The task is awaited to its end before this returns, so `function` does not outlive the call.
        try await withoutActuallyEscaping(function) { function in
            let task = Task(priority: .high) { try await function() }
            try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        }
    }
}

extension Trait where Self == SpawnsProcesses {
    /// The suite's tests start child processes: they take one of a few slots (`SpawnsProcesses`).
    public static var spawnsProcesses: Self { SpawnsProcesses() }
}

/// A counting semaphore for `SpawnsProcesses`, handing slots out in the order they were asked for.
actor ProcessSlots {
    static let shared = ProcessSlots(
        count: ProcessInfo.processInfo.environment["LLMSTER_TEST_PROCESS_SLOTS"].flatMap { Int($0) }.map { max($0, 1) }
            ?? min(5 * max(ProcessInfo.processInfo.activeProcessorCount, 1), maximumDefaultSlots))

    /// The most slots a big machine gets by default: each such test holds some of the test process's descriptors
    /// (pipes, a pseudo-terminal) while its children run, and five per core would run 320 of them at once on 64
    /// cores, whose descriptors could pass the usual soft limit of 1,024.
    static let maximumDefaultSlots = 32

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { free = count }

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}
