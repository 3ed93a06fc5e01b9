import Foundation
import Library
import Simulator
import TestSupport
import Testing

/// What LM Studio 0.4.x servers were seen to send beyond their documentation, each from its report: read, shown and
/// explained, never an error.
@Suite(.spawnsProcesses) struct ObservedServerShapeTests {
    func observed() throws -> (SimulatorFixture, CLI) {
        var options = SimulatorOptions()
        options.observedShapes = true
        let fixture = try SimulatorFixture(options)
        return (fixture, try CLI(server: fixture.url))
    }

    /// `physical_batch_size`, `context_checkpoints`, `reasoning_budget_message`, `speculative_draft_*` in an instance's
    /// config (not in `list.md`): `ps` shows them as the server named them.
    @Test func extraInstanceConfigKeysAreShownByPs() async throws {
        let (fixture, cli) = try observed()
        let ps = try await cli.run(["ps"])
        withExtendedLifetime(fixture) {}
        #expect(ps.status == 0, "\(ps)")
        for shown in [
            "physical_batch_size 512", "context_checkpoints 3", "reasoning_budget_message Thinking budget reached.",
            "speculative_draft_max_tokens 16", "batch 512"
        ] {
            #expect(ps.output.contains(shown), "\(shown): \(ps.output)")
        }
    }

    /// A key without `publisher/` (lmstudio-bug-tracker#1659) and no `capabilities.reasoning`: listed, loaded, chatted with.
    @Test func aModelKeyWithoutPublisherIsListedAndAnswers() async throws {
        let (fixture, cli) = try observed()
        let models = try await cli.run(["models"])
        #expect(models.output.contains("qwen3-4b-2507"), "\(models.output)")
        let asked = try await cli.run(["ask", "-m", "qwen3-4b-2507", "echo:hello"])
        #expect(asked.status == 0 && asked.output == "hello\n", "\(asked)")
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("model") == "qwen3-4b-2507")
    }

    /// A model listing `xhigh` among its reasoning options is sent it, though the documentation lists five values.
    @Test func reasoningOptionsBeyondTheDocumentedOnesAreSentWhenTheModelListsThem() async throws {
        let (fixture, cli) = try observed()
        let asked = try await cli.run(["ask", "-m", "acme/deep-20b", "--reasoning", "xhigh", "echo:deep"])
        #expect(asked.status == 0, "\(asked)")
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("reasoning") == "xhigh")
        let refused = try await cli.run(["ask", "-m", "acme/deep-20b", "--reasoning", "off", "echo:off"])
        #expect(
            refused.status != 0 && refused.errors.contains("xhigh"), "the model's own options are named: \(refused)")
    }

    /// The undocumented `tool_call.name` (lmstudio-bug-tracker#1880) followed by a long silence while the arguments are
    /// written (#1881): the terminal says a call is being prepared, its time moving on, rather than looking stalled.
    @Test func aToolCallBeingNamedShowsAsPreparedNotStalled() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let terminal = try Pseudoterminal(
            try BuiltProduct.path("llmster"),
            ["ask", "-m", "acme/toolsmith-12b", "[[sim:tools,tool-name=3]] find docs"],
            environment: cli.environment, width: 100, height: 50)
        #expect(try await terminal.waitForExit() == 0)
        let shown = Set(
            terminal.rawOutput.matches(of: /Preparing a call to search_docs · (\d+)\.\d s/).map { Int($0.1)! })
        #expect(shown.count >= 2 && shown.contains { $0 >= 1 }, "the time moved on in the silence: \(shown)")
    }

    /// `message.start`/`message.end` with empty payloads and `prompt_processing.end` twice in one stream: tolerated.
    @Test func emptyPayloadsAndARepeatedPromptEndAreTolerated() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let asked = try await cli.run(["ask", "[[sim:sparse-events]] echo:fine as it is"])
        #expect(asked.status == 0 && asked.output == "fine as it is\n" && asked.errors.isEmpty, "\(asked)")
    }

    /// `400` with `code: "unrecognized_keys"` and `param: "integrations.0"` (a field an older server does not know):
    /// named by its integration, with what to change.
    @Test func anUnknownIntegrationFieldNamesTheIntegrationAndWhatToChange() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        try cli.sandbox.write(
            "integration.playwright = mcp/playwright\nintegration.playwright.allowed_tools = browser_click\n",
            to: "config/llmster/config", permissions: 0o644)
        let asked = try await cli.run(["ask", "--integration", "playwright", "[[sim:integration-keys]] echo:hi"])
        #expect(asked.status != 0)
        #expect(
            asked.errors.contains("does not accept a field of the integration 'playwright'")
                && asked.errors.contains("Update LM Studio"), "\(asked.errors)")
    }

    /// 0.4.15 and later refuse an MCP server URL at a non-public address (lmstudio-bug-tracker#1993): the error says how
    /// to use a local server instead.
    @Test func aRefusedLocalMcpUrlSaysToUseMcpJson() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        try cli.sandbox.write(
            "integration.docs = http://localhost:21776/sse\n", to: "config/llmster/config", permissions: 0o644)
        let asked = try await cli.run(["ask", "--integration", "docs", "[[sim:mcp-private]] echo:hi"])
        #expect(
            asked.errors.contains("non-public address") && asked.errors.contains("mcp.json")
                && asked.errors.contains("integration.NAME = mcp/NAME"), "\(asked.errors)")
    }

    /// Reasoning a model wrote inside `<think>…</think>` (the server did not separate it) is reasoning: not in the
    /// answer, saved as reasoning, shown folded on a terminal, and the reply is not taken for a rewrite.
    @Test func thinkTagsInTheAnswerAreReasoningInEveryFace() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let asked = try await cli.run(["ask", "[[sim:think-tags]] echo:only the answer"])
        #expect(asked.status == 0 && asked.output == "only the answer\n" && asked.errors.isEmpty, "\(asked)")
        let library = try LibraryStore(path: cli.sandbox.libraryPath)
        let conversation = try #require(try library.conversations().first)
        let reply = try #require(try library.messages(conversationId: conversation.id).last)
        #expect(
            reply.text == "only the answer" && reply.reasoning.hasPrefix("The user wrote"),
            "\(reply.text) | \(reply.reasoning)")
        #expect(try library.alternatives(messageId: reply.id).count == 1, "not kept as a rewrite")

        let terminal = try Pseudoterminal(
            try BuiltProduct.path("llmster"), ["ask", "[[sim:think-tags]] echo:shown answer"],
            environment: cli.environment, width: 100, height: 40)
        #expect(try await terminal.waitForExit() == 0)
        var screen = TerminalScreen(width: 100, height: 40)
        screen.apply(terminal.rawOutput)
        #expect(
            screen.lines.contains { $0.contains("Thought for") } && !screen.lines.contains { $0.contains("<think>") },
            "\(screen.lines)")
        #expect(screen.lines.contains { $0.hasPrefix("shown answer") }, "\(screen.lines)")
    }
}
