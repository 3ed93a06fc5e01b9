import Foundation
import Simulator
import TestSupport
import Testing

/// System-prompt presets from the config: `--preset`, `/preset`, `/presets`.
@Suite(.spawnsProcesses) struct ReplPresetTests {
    private static let config = """
        preset.reviewer.system = You review diffs tersely.
        preset.reviewer.model = acme/thinker-8b
        preset.reviewer.temperature = 0.2
        preset.poet.system = Answer in verse.

        """

    @Test func startingWithAPresetGivesTheFirstMessageItsPromptModelAndSettings() async throws {
        let repl = try ReplHarness()
        try repl.sandbox.write(Self.config, to: "config/llmster/config")
        let terminal = try await repl.start(["--preset", "reviewer"])
        try await terminal.waitFor("(loaded)")
        try await terminal.enter("echo:first")
        let request = try #require(repl.fixture.requests(to: "/api/v1/chat").last)
        #expect(request.field("system_prompt") == "You review diffs tersely.")
        #expect(request.field("model") == "acme/thinker-8b")
        #expect(request.field("temperature") == "0.2")
    }

    @Test func presetSwitchesAConversationAndPresetsListsThem() async throws {
        let repl = try ReplHarness()
        try repl.sandbox.write(Self.config, to: "config/llmster/config")
        let terminal = try await repl.start()
        let listed = try await terminal.enter("/presets")
        #expect(listed.contains("poet") && listed.contains("\"Answer in verse.\""), "\(listed)")
        #expect(listed.contains("reviewer") && listed.contains("model acme/thinker-8b"), "\(listed)")
        let unknown = try await terminal.enter("/preset nosuch")
        #expect(unknown.contains("There is no preset 'nosuch' (configured: poet, reviewer)"), "\(unknown)")
        try await terminal.enter("echo:before")
        let start = terminal.mark
        terminal.send("/preset poet\r")
        try await terminal.waitFor("Start a fresh server context with the next message? [y/N]", after: start)
        try await terminal.enter("y")
        try await terminal.enter("echo:after")
        let request = try #require(repl.fixture.requests(to: "/api/v1/chat").last)
        #expect(request.field("system_prompt") == "Answer in verse.")
        #expect(request.field("previous_response_id") == nil, "a fresh context carries the new prompt")
        let system = try await terminal.enter("/system")
        #expect(system.contains("Answer in verse."))
    }

    @Test func aPresetChosenBeforeTheFirstMessageAppliesWhenTheConversationIsCreatedUnderALaterModelChoice()
        async throws
    {
        let repl = try ReplHarness()
        try repl.sandbox.write(Self.config, to: "config/llmster/config")
        let terminal = try await repl.start()
        let chosen = try await terminal.enter("/preset reviewer")
        #expect(chosen.contains("Preset reviewer applies to this conversation from its first message."), "\(chosen)")
        try await terminal.enter("/model acme/tiny-1b")
        try await terminal.enter("echo:first")
        let request = try #require(repl.fixture.requests(to: "/api/v1/chat").last)
        #expect(request.field("system_prompt") == "You review diffs tersely.")
        #expect(request.field("temperature") == "0.2")
        #expect(request.field("model") == "acme/tiny-1b", "a model chosen after the preset wins over the preset's")
    }

    @Test func askTakesAPresetAndAnExplicitSystemPromptWins() async throws {
        let repl = try ReplHarness()
        try repl.sandbox.write(Self.config, to: "config/llmster/config")
        let first = try await repl.runBounded(["--preset", "reviewer", "ask", "echo:hi"])
        #expect(first.status == 0, "\(first)")
        var request = try #require(repl.fixture.requests(to: "/api/v1/chat").last)
        #expect(request.field("system_prompt") == "You review diffs tersely.")
        #expect(request.field("model") == "acme/thinker-8b")
        let second = try await repl.runBounded([
            "--preset", "reviewer", "ask", "--system", "Be kind.", "-m", "acme/tiny-1b", "echo:hi"
        ])
        #expect(second.status == 0, "\(second)")
        request = try #require(repl.fixture.requests(to: "/api/v1/chat").last)
        #expect(request.field("system_prompt") == "Be kind.")
        #expect(request.field("model") == "acme/tiny-1b")
        #expect(request.field("temperature") == "0.2")
        let unknown = try await repl.runBounded(["--preset", "nosuch", "ask", "echo:hi"])
        #expect(unknown.status == 2 && unknown.errors.contains("There is no preset 'nosuch'"), "\(unknown)")
        let chats = try await repl.runBounded(["chats", "--json"])
        let list = try JSONSerialization.jsonObject(with: Data(chats.output.utf8)) as? [[String: Any]]
        #expect(list?.count == 2, "no conversation is left behind by the unknown preset")
    }
}
