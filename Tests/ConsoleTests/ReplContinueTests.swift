import Foundation
import TestSupport
import Testing

/// `llmster -c` continues the conversation last used (opened or sent to), not the one created or changed last.
@Suite(.spawnsProcesses) struct ReplContinueTests {
    /// A conversation `Older topic` with one exchange, made before the session under test.
    static func olderConversation(_ repl: ReplHarness) async throws {
        let terminal = try await repl.start()
        try await terminal.enter("echo:older topic")
        try await terminal.enter("/rename Older topic")
        terminal.send("/quit\r")
        #expect(try await terminal.waitForExit() == 0)
    }

    /// Sends `echo:continued` through `llmster -c` and returns the title of the conversation that got it.
    static func continuedTitle(_ repl: ReplHarness) async throws -> String? {
        let continued = try await repl.runBounded(["-c"], input: "echo:continued\n")
        #expect(continued.status == 0, "\(continued)")
        for title in ["Older topic", "Planning notes"] {
            let shown = try await repl.runBounded(["show", title])
            if shown.output.contains("echo:continued") { return title }
        }
        return nil
    }

    @Test func continuesTheConversationOpenedAndChattedInAfterANewOne() async throws {
        let repl = try ReplHarness()
        try await Self.olderConversation(repl)
        let terminal = try await repl.start()
        try await terminal.enter("/new Planning notes")
        #expect(try await terminal.enter("/open Older topic").contains("Opened Older topic."))
        try await terminal.enter("echo:more on the older topic")
        terminal.send("/quit\r")
        #expect(try await terminal.waitForExit() == 0)
        await #expect(try Self.continuedTitle(repl) == "Older topic")
    }

    @Test func openingAloneMakesAConversationTheOneToContinue() async throws {
        let repl = try ReplHarness()
        try await Self.olderConversation(repl)
        let terminal = try await repl.start()
        try await terminal.enter("/new Planning notes")
        try await terminal.enter("/open Older topic")
        terminal.send("/quit\r")
        #expect(try await terminal.waitForExit() == 0)
        await #expect(try Self.continuedTitle(repl) == "Older topic")
    }
}
