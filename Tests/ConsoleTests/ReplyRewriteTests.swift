import Foundation
import Simulator
import TestSupport
import Testing

/// The REPL on a terminal, when `chat.end` carries a different final answer than the one that streamed.
@Suite(.spawnsProcesses) struct ReplyRewriteTests {
    @Test func theTailIsRedrawnWithTheServersFinalAnswer() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("[[sim:rewrite]] echo:first draft")
        var screen = TerminalScreen(width: 100, height: 40)
        screen.apply(terminal.rawOutput)
        let reply = screen.lines.filter { $0.contains("first draft") && !$0.contains("[[sim:") }
        #expect(reply.map { $0.trimmingCharacters(in: .whitespaces) } == ["Revised: first draft"], "\(screen.lines)")
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0)
    }
}
