import Foundation
import Library
import TestSupport
import Testing

/// `restore` refuses while another llmster process has the library open, naming it, so a reply streaming in that
/// process is saved in the library it started in instead of being lost with the replaced file.
@Suite(.spawnsProcesses) struct RestoreLockTests {
    @Test func restoreIsRefusedWhileAnotherProcessStreamsAndWorksAfterIt() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        try #require(try await cli.run(["ask", "first question"]).status == 0)
        let backup = cli.sandbox.root + "/library.backup"
        let backedUp = try await cli.run(["backup", "-o", backup])
        try #require(backedUp.status == 0, "\(backedUp)")

        let asking = try cli.start(["ask", "[[sim:stall=30]] echo:alpha beta gamma delta epsilon"])
        try await cli.sandbox.waitForPartialReply(containing: "alpha")
        let refused = try await cli.run(["restore", backup, "--yes"])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.errors.contains("in use by process \(asking.process.processIdentifier)"), "\(refused)")
        #expect(refused.errors.contains("ask"), "the command is named: \(refused)")

        asking.signal(SIGTERM)
        await #expect(asking.wait().status == 143)
        do {
            // Closed again before the restore below: this test process would hold the library too.
            let library = try LibraryStore(path: cli.sandbox.libraryPath)
            let streamed = try #require(try library.mostRecentConversation())
            #expect(
                try library.messages(conversationId: streamed.id).contains { $0.text.contains("alpha") },
                "the reply that was streaming is in the library")
        }
        let files = try FileManager.default.contentsOfDirectory(
            atPath: (cli.sandbox.libraryPath as NSString).deletingLastPathComponent)
        #expect(!files.contains { $0.contains("restoring") || $0.contains("before-restore") }, "\(files)")

        let restored = try await cli.run(["restore", backup, "--yes"])
        #expect(restored.status == 0, "once the other process has ended, the restore goes ahead\n\(restored)")
        #expect(try LibraryStore(path: cli.sandbox.libraryPath).conversations().map(\.title) == ["first question"])
    }

    /// A process that opens the library while restore waits for its yes makes the swap refuse, and the restored copy
    /// built beside the library goes with the refusal.
    @Test func aLibraryOpenedWhileRestoreAsksIsRefusedAtTheSwapLeavingNothing() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        try #require(try await cli.run(["ask", "first question"]).status == 0)
        let backup = cli.sandbox.root + "/library.backup"
        try #require(try await cli.run(["backup", "-o", backup]).status == 0)

        let terminal = try Pseudoterminal(
            try BuiltProduct.path("llmster"), ["restore", backup], environment: cli.environment)
        let asked = try await terminal.waitPast("Replace the library at")
        let asking = try cli.start(["ask", "[[sim:stall=30]] echo:alpha beta gamma delta epsilon"])
        try await cli.sandbox.waitForPartialReply(containing: "alpha")
        terminal.send("y\r")
        let refusal = try await terminal.waitFor("in use by process \(asking.process.processIdentifier)", after: asked)
        #expect(try await terminal.waitForExit() == 1, "\(refusal)")
        let files = try FileManager.default.contentsOfDirectory(
            atPath: (cli.sandbox.libraryPath as NSString).deletingLastPathComponent)
        #expect(!files.contains { $0.contains("restoring") || $0.contains("before-restore") }, "\(files)")
        asking.signal(SIGTERM)
        await #expect(asking.wait().status == 143)
    }
}
