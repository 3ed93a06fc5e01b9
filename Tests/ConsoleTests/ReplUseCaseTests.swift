import Foundation
import Simulator
import TestSupport
import Testing

/// The REPL as an adapter over the engine's use cases: the effective model in the prompt, `/set`, `/system`, `/export`.
@Suite(.spawnsProcesses) struct ReplUseCaseTests {
    @Test func aConversationOnASecondInstanceShowsLoaded() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let loaded = try await terminal.enter("/load")
        #expect(loaded.contains("Loaded acme/tiny-1b:2"), "\(loaded)")
        let chosen = try await terminal.enter("/model acme/tiny-1b:2")
        #expect(chosen.contains("acme/tiny-1b:2 (loaded)"), "the prompt knows the instance: \(chosen)")
        let answered = try await terminal.enter("echo:on the second instance")
        #expect(answered.contains("acme/tiny-1b:2 (loaded)"), "\(answered)")
        #expect(repl.fixture.requests(to: "/api/v1/chat").last?.field("input") == "echo:on the second instance")
    }

    @Test func setWithoutArgumentsListsTheSettings() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("/set temperature 0.3")
        let listed = try await terminal.enter("/set")
        let rows = listed.components(separatedBy: "\n")
        #expect(rows.contains { $0.hasPrefix("temperature") && $0.hasSuffix("0.3") }, "\(listed)")
        #expect(rows.contains { $0.hasPrefix("top_p") && $0.hasSuffix("default") }, "\(listed)")
        #expect(rows.contains { $0.hasPrefix("speak") && $0.hasSuffix("off") }, "\(listed)")
    }

    @Test func changingTheSystemPromptAfterTheFirstTurnOffersAFreshContext() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("/system Be brief.")
        #expect(try await terminal.enter("/system").contains("Be brief."))
        try await terminal.enter("echo:first")
        #expect(repl.fixture.requests(to: "/api/v1/chat").last?.field("system_prompt") == "Be brief.")
        let start = terminal.mark
        terminal.send("/system Be verbose.\r")
        let question = try await terminal.waitFor(
            "Start a fresh server context with the next message? [y/N]", after: start)
        #expect(!question.contains("System prompt set."), "nothing claims the prompt is in effect: \(question)")
        #expect(try await terminal.enter("y").contains("the next message starts a fresh server context"))
        try await terminal.enter("echo:second")
        let last = try #require(repl.fixture.requests(to: "/api/v1/chat").last)
        #expect(last.field("system_prompt") == "Be verbose.")
        #expect(last.field("previous_response_id") == nil)

        let declined = terminal.mark
        terminal.send("/system clear\r")
        try await terminal.waitFor("[y/N]", after: declined)
        #expect(try await terminal.enter("n").contains("not yet in effect"))
    }
}
