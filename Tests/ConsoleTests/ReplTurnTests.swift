import Foundation
import Simulator
import TestSupport
import Testing

/// How turns read in the scrollback: set apart, previews and notifications as plain text, the way to the reasoning
/// named, pastes counted right.
@Suite(.spawnsProcesses) struct ReplTurnTests {
    @Test func aBlankRowSetsEachTurnApartFromTheNextPrompt() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:first answer")
        try await terminal.enter("/ps")
        var screen = TerminalScreen(width: 100, height: 40)
        screen.apply(terminal.rawOutput)
        let lines = screen.lines
        let answer = try #require(lines.lastIndex { $0.hasSuffix("first answer") && !$0.contains("›") }, "\(lines)")
        let prompt = try #require(lines[answer...].firstIndex { $0.hasPrefix("[acme/") }, "\(lines)")
        #expect(lines[prompt - 1] == "", "a blank row before the prompt after a reply: \(lines[answer...])")
        #expect(lines[prompt - 2].contains("tok/s"), "the stats line ends the turn: \(lines[answer...])")
        let command = try #require(lines.lastIndex { $0.hasSuffix("› /ps") })
        let next = try #require(lines[command...].firstIndex { $0.hasPrefix("[acme/") })
        #expect(lines[next - 1] != "", "command output is not padded: \(lines[command...])")
    }

    @Test func alternativesArePreviewedAsTheyReadNotAsMarkdown() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:* **bold** and `code` first")
        try await terminal.enter("/retry")
        let listing = try await terminal.enter("/alt")
        let rows = listing.split(separator: "\n").filter { $0.hasPrefix("  1.") || $0.hasPrefix("  2.") }
        #expect(rows.count == 2 && rows.allSatisfy { $0.contains("• bold and `code` first") }, "\(listing)")
        #expect(
            !rows.contains { $0.contains("**") || $0.contains("* ") }, "no emphasis syntax in the previews: \(rows)")
        #expect(rows.last?.hasSuffix("(current)") == true)
    }

    @Test func theFirstReasoningReplySaysHowToOpenTheReasoning() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let first = try await terminal.enter("[[sim:reasoning]] echo:thought about")
        #expect(first.contains("Thought for"), "\(first)")
        #expect(first.contains("/show reasoning opens it"), "\(first)")
        let second = try await terminal.enter("[[sim:reasoning]] echo:again")
        #expect(!second.contains("/show reasoning opens it"), "said once a session: \(second)")
    }

    @Test func notificationsCarryTheAnswerAsPlainText() async throws {
        let repl = try ReplHarness(environment: ["PATH": "/nonexistent"])
        try repl.sandbox.write("notify_after_seconds = 0\n", to: "config/llmster/config")
        let terminal = try await repl.start()
        try await terminal.enter("echo:**done** with `make`")
        #expect(
            terminal.rawOutput.contains("\u{1B}]777;notify;acme/tiny-1b finished;done with `make`\u{7}"),
            "\(terminal.rawOutput.debugDescription)")
    }

    @Test func aPasteEndingInANewlineIsCountedByItsLines() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start(height: 20)
        let lines = (1...42).map { "pasted line \($0)" }
        let start = terminal.mark
        terminal.send("echo:\u{1B}[200~" + lines.joined(separator: "\n") + "\n\u{1B}[201~")
        try await terminal.waitFor("[pasted 42 lines]", after: start)
        terminal.send("\r")
        try await terminal.waitFor("pasted line 42", after: start)
    }
}
