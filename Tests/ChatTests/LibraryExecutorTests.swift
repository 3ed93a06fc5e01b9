import Foundation
import HTTP
import LMStudio
import Library
import TestSupport
import Testing

@testable import Chat

/// A session's library work runs on a thread of its own, so a library call that blocks (SQLite's busy timeout, a
/// backup's key derivation) never holds a thread of the cooperative pool, which has one per core.
@Suite struct LibraryExecutorTests {
    @Test(.timeLimit(.minutes(1)))
    func moreBlockedLibraryCallsThanCoresLeaveThePoolFree() async throws {
        let count = ProcessInfo.processInfo.activeProcessorCount + 1
        let sandbox = try Sandbox()
        let sessions = try (0..<count).map { index in
            ChatSession(
                client: LMStudioClient(server: "http://127.0.0.1:9", token: nil, transport: CurlTransport()),
                library: try LibraryStore(path: sandbox.root + "/library-\(index).sqlite3"),
                configuration: Configuration())
        }
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let calls = sessions.map { session in
            Task {
                try await session.withLibrary { library in
                    entered.signal()
                    gate.wait()
                    return try library.conversations().count
                }
            }
        }
        // On the pool, these blocked calls would hold every thread, and this task could not go on to open the gate.
        for _ in 0..<count { entered.wait() }
        for _ in 0..<count { gate.signal() }
        for call in calls { #expect(try await call.value == 0) }
    }

    /// The executor answers the runtime's question "is this its thread?": yes in a job it runs, no elsewhere, so
    /// synchronous code may assume a session's isolation only where it really has it.
    @Test func theExecutorKnowsItsOwnThread() async {
        let probe = ExecutorProbe()
        #expect(probe.executor.isIsolatingCurrentContext() == false)
        #expect(await probe.askedFromAJob() == true)
    }
}

/// An actor on a `LibraryExecutor`, which asks its executor from one of its jobs.
private actor ExecutorProbe {
    nonisolated let executor = LibraryExecutor(name: "llmster test probe")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    func askedFromAJob() -> Bool? { executor.isIsolatingCurrentContext() }
}
