import Foundation
import Library
import TestSupport
import Testing

/// `ask` at the turn's edges: a reader that goes away early, and the load policy.
@Suite(.spawnsProcesses) struct AskTurnEdgeTests {
    /// Starts `ask` on a reply that sends three deltas and then goes quiet for 30 s (only the test can end it early),
    /// standard output on a pipe, and reads its first 8 bytes.
    static func askReadingEightBytes(_ cli: CLI, errors: Pipe) throws -> (Process, Pipe, Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BuiltProduct.path("llmster"))
        process.arguments = ["ask", "[[sim:stall=30]] echo:w0 w1 w2 w3 w4 w5 w6"]
        process.environment = cli.environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var head = Data()
        while head.count < 8, let chunk = try output.fileHandleForReading.read(upToCount: 8 - head.count),
            !chunk.isEmpty
        {
            head += chunk
        }
        return (process, output, head)
    }

    /// `llmster ask … | head -c 8`: the reader closes after 8 bytes while the reply is still coming.
    @Test func aReaderThatClosesEarlyLeavesWhatArrivedSavedAndTheIncompleteStatus() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let errors = Pipe()
        let (process, output, head) = try Self.askReadingEightBytes(cli, errors: errors)
        try output.fileHandleForReading.close()
        await process.waitForExit()
        let stderr = String(decoding: await errors.fileHandleForReading.readToEndOfFile(), as: UTF8.self)
        #expect(String(decoding: head, as: UTF8.self) == "w0 w1 w2")
        #expect(
            process.terminationReason == .exit && process.terminationStatus == 6,
            "the incomplete status, not SIGPIPE: \(process.terminationReason.rawValue)/\(process.terminationStatus) \(stderr)"
        )
        #expect(stderr.contains("Output closed; the text received so far is kept."), "\(stderr)")
        let library = try LibraryStore(path: cli.sandbox.libraryPath)
        let conversation = try #require(try library.conversations().first)
        let reply = try #require(try library.messages(conversationId: conversation.id).last)
        #expect(reply.status == .incomplete && reply.text.hasPrefix("w0 w1 w2"), "what arrived is saved: \(reply.text)")
        #expect(reply.error == "Output closed; the text received so far is kept.")
    }

    @Test func ctrlCWithOutputPipedExitsInterrupted() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let (process, output, _) = try Self.askReadingEightBytes(cli, errors: Pipe())
        kill(process.processIdentifier, SIGINT)
        await process.waitForExit()
        withExtendedLifetime(output) {}
        #expect(process.terminationReason == .exit && process.terminationStatus == 130)
    }

    /// Ctrl-C on `ask | cat` interrupts the reader too: the closed pipe does not turn the interruption into SIGPIPE's
    /// 141 or the incomplete reply's 6.
    @Test func ctrlCThatAlsoEndsTheReaderExitsInterrupted() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let (process, output, _) = try Self.askReadingEightBytes(cli, errors: Pipe())
        kill(process.processIdentifier, SIGINT)
        try output.fileHandleForReading.close()
        await process.waitForExit()
        #expect(
            process.terminationReason == .exit && process.terminationStatus == 130,
            "\(process.terminationReason.rawValue)/\(process.terminationStatus)")
    }

    /// The load policy holds in `ask` as in the REPL: the previous chat model is unloaded, not left beside the new one.
    @Test func askLoadsItsModelAndUnloadsThePreviousChatModel() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["ask", "-m", "acme/tiny-1b", "echo:one"]).status == 0)
        #expect(try await cli.run(["ask", "-m", "acme/thinker-8b", "echo:two"]).status == 0)
        let ps = try await cli.run(["ps"])
        #expect(
            ps.output.contains("acme/thinker-8b") && !ps.output.contains("acme/tiny-1b"),
            "one chat model loaded: \(ps.output)")
        try cli.sandbox.write("keep_previous_models = true\n", to: "config/llmster/config")
        #expect(try await cli.run(["ask", "-m", "acme/toolsmith-12b", "echo:three"]).status == 0)
        let kept = try await cli.run(["ps"])
        #expect(
            kept.output.contains("acme/thinker-8b") && kept.output.contains("acme/toolsmith-12b"),
            "kept: \(kept.output)")
    }

    /// `ask -c` continues a conversation whose model is no longer loaded: it is loaded again and the other chat model
    /// unloaded, as a message in the REPL does.
    @Test func askContinuingLoadsTheConversationsModelUnderThePolicy() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["ask", "-m", "acme/thinker-8b", "echo:one"]).status == 0)
        #expect(try await cli.run(["ask", "--no-save", "-m", "acme/tiny-1b", "echo:elsewhere"]).status == 0)
        #expect(try await cli.run(["ask", "-c", "echo:two"]).status == 0)
        let ps = try await cli.run(["ps"])
        #expect(
            ps.output.contains("acme/thinker-8b") && !ps.output.contains("acme/tiny-1b"),
            "one chat model loaded: \(ps.output)")
    }
}
