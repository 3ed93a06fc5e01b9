import Foundation
import Simulator
import TerminalMarkdown
import TestSupport
import Testing

/// The reasoning tail on real terminals: rows measured as the terminal counts them, and no row left behind when the
/// window is resized while the tail is drawn.
@Suite(.spawnsProcesses) struct ReplReasoningTailTests {
    @Test(arguments: [WidthModel.codepoint, .grapheme])
    func tailRowsFitTheTerminalAsItCountsColumns(model: WidthModel) {
        let presenter = ReplyPresenter(capabilities: TerminalCapabilities(width: 30, widthModel: model))
        let reasoning = String(repeating: "weigh the 👩‍💻 and 👨‍👩‍👧 cases ", count: 12)
        let rows = presenter.reasoningTail(reasoning, lineCount: 3)
        #expect(rows.count == 3)
        for row in rows {
            let shown = Pseudoterminal.strip(row)
            #expect(
                DisplayWidth.of(shown, model: model) <= 29, "'\(shown)' fits 29 columns as the terminal counts them")
        }
    }

    /// On xterm (code points: 👩‍💻 takes 4 columns) the tail's rows, drawn with autowrap off, keep their last characters.
    @Test func tailRowsOnAnXtermAreNotCutAtTheEdge() async throws {
        var options = SimulatorOptions()
        options.tokenDelay = 0.05
        let repl = try ReplHarness(options)
        let terminal = try await repl.start(width: 60)
        let echoed = try await terminal.sendLine("[[sim:reasoning large-reasoning=1500 delta=30]] echo:the answer")
        try await terminal.waitFor("6:", after: echoed)
        var screen = TerminalScreen(width: 60, height: 40) { DisplayWidth.of($0, model: .codepoint) }
        screen.apply(terminal.rawOutput)
        let tail = screen.lines.filter { $0.contains("weigh") || $0.contains("answering") }
        #expect(!tail.isEmpty)
        for row in tail {
            #expect(
                DisplayWidth.of(row, model: .codepoint) < 60,
                "the row fits, its end not overwritten at the last column: '\(row)'")
        }
        try await terminal.waitFor("Thought for", after: echoed)
    }

    @Test func resizingWhileTheTailIsDrawnLeavesNoStaleRows() async throws {
        var options = SimulatorOptions()
        options.tokenDelay = 0.08
        let repl = try ReplHarness(options, environment: ["VTE_VERSION": "7200"])
        let terminal = try await repl.start(width: 80)
        let echoed = try await terminal.sendLine("[[sim:reasoning large-reasoning=1800 delta=30]] echo:the answer")
        try await terminal.waitFor("5:", after: echoed)
        let atFifty = terminal.rawOutput.count
        terminal.resize(width: 50, height: 40)
        try await terminal.waitFor("14:", after: echoed)
        let atEighty = terminal.rawOutput.count
        terminal.resize(width: 80, height: 40)
        let past = try await terminal.waitPast("Thought for", after: echoed)
        try await terminal.waitFor("› ", after: past)
        let raw = Array(terminal.rawOutput)
        var screen = TerminalScreen(width: 80, height: 40) { DisplayWidth.of($0, model: .codepoint) }
        screen.apply(String(raw[..<atFifty]))
        screen.resize(width: 50)
        screen.apply(String(raw[atFifty..<atEighty]))
        screen.resize(width: 80)
        screen.apply(String(raw[atEighty...]))
        let lines = screen.lines
        let summary = try #require(lines.firstIndex { $0.contains("Thought for") }, "\(lines)")
        let stale = lines[..<summary].filter { $0.contains("Step ") || $0.contains("weigh") }
        #expect(stale.isEmpty, "no reasoning row is left above the summary: \(lines)")
    }
}
