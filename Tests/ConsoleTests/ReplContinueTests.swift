import Foundation
import TestSupport
import Testing

/// `llmster -c` continues the conversation last used (opened or sent to), not the one created or changed last.
@Suite struct ReplContinueTests {
    /// A conversation `Older topic` with one exchange, made before the session under test.
    static func olderConversation(_ repl: ReplHarness) throws {
        let terminal = try repl.start()
        try terminal.enter("echo:older topic")
        try terminal.enter("/rename Older topic")
        terminal.send("/quit\r")
        #expect(try terminal.waitForExit() == 0)
    }

    /// Sends `echo:continued` through `llmster -c` and returns the title of the conversation that got it.
    static func continuedTitle(_ repl: ReplHarness) throws -> String? {
        let continued = try repl.runBounded(["-c"], input: "echo:continued\n")
        #expect(continued.status == 0, "\(continued)")
        for title in ["Older topic", "Planning notes"] {
            let shown = try repl.runBounded(["show", title])
            if shown.output.contains("echo:continued") { return title }
        }
        return nil
    }

    @Test func continuesTheConversationOpenedAndChattedInAfterANewOne() throws {
        let repl = try ReplHarness()
        try Self.olderConversation(repl)
        let terminal = try repl.start()
        try terminal.enter("/new Planning notes")
        #expect(try terminal.enter("/open Older topic").contains("Opened Older topic."))
        try terminal.enter("echo:more on the older topic")
        terminal.send("/quit\r")
        #expect(try terminal.waitForExit() == 0)
        #expect(try Self.continuedTitle(repl) == "Older topic")
    }

    @Test func openingAloneMakesAConversationTheOneToContinue() throws {
        let repl = try ReplHarness()
        try Self.olderConversation(repl)
        let terminal = try repl.start()
        try terminal.enter("/new Planning notes")
        try terminal.enter("/open Older topic")
        terminal.send("/quit\r")
        #expect(try terminal.waitForExit() == 0)
        #expect(try Self.continuedTitle(repl) == "Older topic")
    }
}
