import Foundation
import Simulator
import Testing
import TestSupport

/// What the server reports reaches the REPL: the model load time of a reply, load options and instance configs.
@Suite struct ReplServerReportTests {
    @Test func aReplyThatLoadedTheModelSaysHowLongTheLoadTook() throws {
        let repl = try ReplHarness()
        let terminal = try repl.start(["-m", "acme/toolsmith-12b"])
        // The REPL loads a conversation's model itself before a message; unloaded behind its back (here by another
        // process), the server loads it just in time for the reply.
        #expect(try terminal.enter("echo:first").contains("Loaded acme/toolsmith-12b"))
        #expect(try repl.runBounded(["unload", "acme/toolsmith-12b"]).status == 0)
        let answered = try terminal.enter("echo:loaded just in time")
        #expect(answered.contains("model load 1.3 s"), "the stats line: \(answered)")
        let stats = try terminal.enter("/stats")
        #expect(stats.contains("model loaded for this reply in 1.25 s"), "\(stats)")
        let again = try terminal.enter("echo:already loaded")
        #expect(!again.contains("model load"), "\(again)")
    }

    @Test func loadOptionsReachTheServerAndTheAppliedConfigurationIsShown() throws {
        let repl = try ReplHarness()
        let terminal = try repl.start()
        let loaded = try terminal.enter("/load acme/multi-26b --flash-attention off --num-experts 2")
        #expect(loaded.contains("no flash attention · 2 experts"), "\(loaded)")
        #expect(repl.fixture.requests(to: "/api/v1/models/load").last?.field("echo_load_config") == "true")
        let listed = try terminal.enter("/ps")
        #expect(listed.contains("parallel 4"), "\(listed)")
    }
}
