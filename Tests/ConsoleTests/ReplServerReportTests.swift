import Foundation
import Library
import Simulator
import TestSupport
import Testing

/// What the server reports reaches the REPL: the model load time of a reply, load options and instance configs.
@Suite(.spawnsProcesses) struct ReplServerReportTests {
    /// The model is loaded under the load policy before each message, also after another process unloaded it; a reply
    /// the server loaded its model for (another client unloaded it between the two) says how long that took.
    @Test func aModelUnloadedElsewhereIsLoadedAgainAndAReplysLoadTimeIsShown() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start(["-m", "acme/toolsmith-12b"])
        #expect(try await terminal.enter("echo:first").contains("Loaded acme/toolsmith-12b"))
        #expect(try await repl.runBounded(["unload", "acme/toolsmith-12b"]).status == 0)
        let answered = try await terminal.enter("echo:loaded again")
        #expect(answered.contains("Loaded acme/toolsmith-12b") && answered.contains("loaded again"), "\(answered)")
        #expect(!answered.contains("model load"), "llmster loaded it, not the server just in time: \(answered)")
        // The server's figure, as a just-in-time load reports it, saved with the reply.
        let library = try LibraryStore(path: repl.sandbox.libraryPath)
        let conversation = try #require(try library.conversations().first)
        let reply = try #require(try library.messages(conversationId: conversation.id).last)
        try library.updateReply(
            messageId: reply.id,
            MessageContent(
                text: reply.text, status: .complete,
                statsJSON: #"{"total_output_tokens":2,"model_load_time_seconds":1.25}"#))
        let stats = try await terminal.enter("/stats")
        #expect(stats.contains("model loaded for this reply in 1.25 s"), "\(stats)")
    }

    @Test func loadOptionsReachTheServerAndTheAppliedConfigurationIsShown() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let loaded = try await terminal.enter("/load acme/multi-26b --flash-attention off --num-experts 2")
        #expect(loaded.contains("no flash attention · 2 experts"), "\(loaded)")
        #expect(repl.fixture.requests(to: "/api/v1/models/load").last?.field("echo_load_config") == "true")
        let listed = try await terminal.enter("/ps")
        #expect(listed.contains("parallel 4"), "\(listed)")
    }
}
