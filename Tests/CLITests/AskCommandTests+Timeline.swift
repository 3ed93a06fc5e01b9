import Foundation
import TestSupport
import Testing

extension AskCommandTests {
    /// Where `needle` first appears in `text`; fails the test when it does not.
    private func offset(of needle: String, in text: String) throws -> Int {
        let range = try #require(text.range(of: needle), "\(needle) is missing from:\n\(text)")
        return text.distance(from: text.startIndex, to: range.lowerBound)
    }

    @Test func showPrintsReasoningToolCallsAndTextInTheServersOrder() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let result = try await cli.run(["ask", "-m", "acme/toolsmith-12b", "[[sim:tools]] find docs"])
        #expect(result.status == 0, "\(result)")
        let show = try await cli.run(["show", try latestConversation(cli), "--tools", "--reasoning"])
        #expect(show.status == 0, "\(show)")
        let order = try [
            "**Thought for ", "search_docs", "Let me look that up in the docs first.", "open_browser",
            "You said:"
        ].map { try offset(of: $0, in: show.output) }
        #expect(
            order == order.sorted(), "reasoning → search_docs → text → failed open_browser → answer:\n\(show.output)")
        #expect(!show.output.contains("no answer text"))

        let plain = try await cli.run(["show", try latestConversation(cli)])
        #expect(!plain.output.contains("**Thought for "), "reasoning only with --reasoning")
        #expect(try offset(of: "Let me look that up", in: plain.output) < offset(of: "open_browser", in: plain.output))
    }

    /// On a terminal the reasoning summary, each tool call line and the text around them appear in the server's
    /// order, not tool calls first.
    @Test func theTerminalShowsReasoningToolCallsAndTextInTheServersOrder() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let terminal = try Pseudoterminal(
            try BuiltProduct.path("llmster"), ["ask", "-m", "acme/toolsmith-12b", "[[sim:tools]] find docs"],
            environment: cli.environment, width: 100, height: 50)
        #expect(try await terminal.waitForExit() == 0)
        var emulated = TerminalScreen(width: 100, height: 50)
        emulated.apply(terminal.rawOutput)
        let screen = emulated.lines.joined(separator: "\n")
        let order = try [
            "Thought for", "search_docs", "Let me look that up in the docs first.", "open_browser", "You said:"
        ]
        .map { try offset(of: $0, in: screen) }
        #expect(order == order.sorted(), "reasoning → search_docs → text → failed open_browser → answer:\n\(screen)")
    }

    /// A reply ended by the server's error event is marked an error on the screen, as `show` marks the saved reply.
    @Test func aServerErrorIsMarkedAsShowMarksIt() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let terminal = try Pseudoterminal(
            try BuiltProduct.path("llmster"), ["ask", "[[sim:error]] hello"], environment: cli.environment, width: 100,
            height: 30)
        #expect(try await terminal.waitForExit() != 0)
        var emulated = TerminalScreen(width: 100, height: 30)
        emulated.apply(terminal.rawOutput)
        #expect(emulated.lines.contains { $0.hasPrefix("⚠ error: The server reported an error") }, "\(emulated.lines)")
        let shown = try await cli.run(["show", "[[sim:error]] hello"])
        #expect(shown.output.contains("**⚠ error**"), "\(shown.output)")
    }

    /// A tool call that runs for a while shows its name at once and its time moving on, with no event arriving.
    @Test func aRunningToolCallShowsItsNameAndTicks() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let terminal = try Pseudoterminal(
            try BuiltProduct.path("llmster"),
            ["ask", "-m", "acme/toolsmith-12b", "[[sim:tools,tool-stall=4]] find docs"],
            environment: cli.environment, width: 100, height: 50)
        #expect(try await terminal.waitForExit() == 0)
        let shown = Set(terminal.rawOutput.matches(of: /Running search_docs · (\d+)\.\d s/).map { Int($0.1)! })
        #expect(
            shown.count >= 2 && shown.contains { $0 >= 1 }, "the running call's time moved on in the silence: \(shown)")
        var emulated = TerminalScreen(width: 100, height: 50)
        emulated.apply(terminal.rawOutput)
        #expect(
            !emulated.lines.contains { $0.contains("Running search_docs") },
            "the running line goes when the call ends: \(emulated.lines)")
    }

    /// A reply that ends while a tool call runs shows that call as one that did not finish, as `show` records it.
    @Test func aToolCallCutOffByTheEndOfTheStreamStaysOnTheScreen() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let terminal = try Pseudoterminal(
            try BuiltProduct.path("llmster"), ["ask", "-m", "acme/toolsmith-12b", "[[sim:tools,tool-drop]] find docs"],
            environment: cli.environment, width: 100, height: 50)
        #expect(try await terminal.waitForExit() == 6)
        var emulated = TerminalScreen(width: 100, height: 50)
        emulated.apply(terminal.rawOutput)
        #expect(
            emulated.lines.contains { $0.contains("search_docs") && $0.contains("did not finish") }, "\(emulated.lines)"
        )
        let show = try await cli.run(["show", try latestConversation(cli)])
        #expect(show.output.contains("search_docs") && show.output.contains("(did not finish)"), "\(show.output)")
    }
}
