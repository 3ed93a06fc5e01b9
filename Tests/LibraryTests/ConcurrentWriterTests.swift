import Foundation
import Library
import Synchronization
import Testing

/// Errors collected from worker threads.
private final class Failures: Sendable {
    private let messages = Mutex<[String]>([])

    func record(_ error: any Error) { messages.withLock { $0.append("\(error)") } }
    var all: [String] { messages.withLock { $0 } }
}

@Suite struct ConcurrentWriterTests {
    /// Runs `body(worker)` on `count` threads at once and waits for all of them.
    private func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Void) -> [String] {
        let failures = Failures()
        let done = DispatchSemaphore(value: 0)
        for worker in 0..<count {
            Thread {
                do { try body(worker) } catch { failures.record(error) }
                done.signal()
            }.start()
        }
        for _ in 0..<count { done.wait() }
        return failures.all
    }

    /// Each opening reads the file's header while others may be migrating it; read in pieces, a migration committed
    /// in between made a new library look like another program's database (seen once, in a loaded parallel run).
    @Test func connectionsOpeningANewFileAtOnceAllMigrate() throws {
        for _ in 0..<25 {
            let library = TemporaryLibrary()
            let path = library.path
            let failures = onThreads(4) { _ in _ = try LibraryStore(path: path).statistics() }
            #expect(failures.isEmpty)
        }
    }

    @Test func twoConnectionsWritingAtOnceNeverSeeALockedDatabase() throws {
        let library = TemporaryLibrary()
        let conversationId = try library.open().createConversation(title: "shared").id
        let path = library.path
        let perWorker = 150
        let failures = onThreads(2) { worker in
            let store = try LibraryStore(path: path)
            for index in 0..<perWorker {
                try store.transaction {
                    let reply = try store.appendMessage(
                        conversationId: conversationId, role: .assistant, MessageContent(text: "", status: .streaming))
                    try store.updateReply(
                        messageId: reply.id, MessageContent(text: "worker \(worker) reply \(index)", status: .complete))
                }
                _ = try store.messages(conversationId: conversationId).count
            }
        }
        #expect(failures.isEmpty)
        let messages = try library.open().messages(conversationId: conversationId)
        #expect(messages.map(\.position) == Array(0..<(2 * perWorker)))
        #expect(Set(messages.map(\.text)).count == 2 * perWorker)
        #expect(messages.allSatisfy { $0.status == .complete })
    }

    @Test(.spawnsProcesses)
    func anotherProcessWritingAtTheSameTime() async throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let conversation = try store.createConversation(title: "busy")
        let count = 300
        var script = ".timeout 5000\n"
        for index in 0..<count {
            script +=
                "BEGIN IMMEDIATE; INSERT INTO folders (name, position) VALUES ('cli \(index)', \(index)); COMMIT;\n"
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = ["-bail", library.path]
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(script.utf8))
        try input.fileHandleForWriting.close()

        for index in 0..<count {
            try store.appendMessage(
                conversationId: conversation.id, role: .user, MessageContent(text: "message \(index)"))
        }
        await process.waitForExit()
        let stderr = String(decoding: await errors.fileHandleForReading.readToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "sqlite3 failed: \(stderr)")
        #expect(stderr.isEmpty)
        let statistics = try store.statistics()
        #expect(statistics.folders == count)
        #expect(statistics.messages == count)
    }
}
