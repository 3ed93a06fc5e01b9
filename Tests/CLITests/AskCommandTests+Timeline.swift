import Foundation
import Testing
import TestSupport

extension AskCommandTests {
    /// Where `needle` first appears in `text`; fails the test when it does not.
    private func offset(of needle: String, in text: String) throws -> Int {
        let range = try #require(text.range(of: needle), "\(needle) is missing from:\n\(text)")
        return text.distance(from: text.startIndex, to: range.lowerBound)
    }

    @Test func showPrintsReasoningToolCallsAndTextInTheServersOrder() throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let result = try cli.run(["ask", "-m", "acme/toolsmith-12b", "[[sim:tools]] find docs"])
        #expect(result.status == 0, "\(result)")
        let show = try cli.run(["show", try latestConversation(cli), "--tools", "--reasoning"])
        #expect(show.status == 0, "\(show)")
        let order = try ["**Reasoning**", "search_docs", "Let me look that up in the docs first.", "open_browser",
                         "You said:"].map { try offset(of: $0, in: show.output) }
        #expect(order == order.sorted(), "reasoning → search_docs → text → failed open_browser → answer:\n\(show.output)")
        #expect(!show.output.contains("no answer text"))

        let plain = try cli.run(["show", try latestConversation(cli)])
        #expect(!plain.output.contains("**Reasoning**"), "reasoning only with --reasoning")
        #expect(try offset(of: "Let me look that up", in: plain.output) < offset(of: "open_browser", in: plain.output))
    }

    /// Known issue (issue 13, display part, left to the helpers changing Sources/TerminalMarkdown): the live view
    /// commits each finished tool call line at once, the reasoning summary only when the answer starts, and answer
    /// text only block by block, so the terminal shows search_docs above "Thought for" and open_browser above the
    /// text that came before it. When the display keeps the order, drop `withKnownIssue`.
    @Test func theTerminalShowsReasoningToolCallsAndTextInTheServersOrder() throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let terminal = try Pseudoterminal(try BuiltProduct.path("llmster"), ["ask", "-m", "acme/toolsmith-12b", "[[sim:tools]] find docs"],
                                          environment: cli.environment, width: 100, height: 50)
        #expect(try terminal.waitForExit() == 0)
        var emulated = TerminalScreen(width: 100, height: 50)
        emulated.apply(terminal.rawOutput)
        let screen = emulated.lines.joined(separator: "\n")
        let order = try ["Thought for", "search_docs", "Let me look that up in the docs first.", "open_browser", "You said:"]
            .map { try offset(of: $0, in: screen) }
        withKnownIssue("the live display groups tool call lines above text and reasoning that came before them") {
            #expect(order == order.sorted(), "reasoning → search_docs → text → failed open_browser → answer:\n\(screen)")
        }
    }
}
