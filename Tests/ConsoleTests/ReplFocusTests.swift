import Foundation
import Simulator
import TestSupport
import Testing

/// A long reply's notification only when the terminal reports it lost the focus.
@Suite(.spawnsProcesses) struct ReplFocusTests {
    private func notifications(_ terminal: Pseudoterminal) -> Int {
        terminal.rawOutput.components(separatedBy: "\u{1B}]777;notify;").count - 1
    }

    @Test func aFocusedTerminalGetsNoNotificationAnUnfocusedOneDoes() async throws {
        let repl = try ReplHarness(environment: ["PATH": "/nonexistent"])
        try repl.sandbox.write("notify_after_seconds = 0\n", to: "config/llmster/config")
        let terminal = try await repl.start()
        #expect(terminal.rawOutput.contains("\u{1B}[?1004h"), "focus reports are asked for")
        terminal.send("\u{1B}[I")
        try await terminal.enter("echo:watched")
        #expect(notifications(terminal) == 0, "the user is looking at the terminal")
        terminal.send("\u{1B}[O")
        try await terminal.enter("echo:away")
        #expect(notifications(terminal) == 1, "the user switched away at the prompt")
        terminal.send("\u{1B}[I")
        // Enter, then at once away: the report arrives while the reply streams.
        let start = terminal.mark
        terminal.send("echo:alpha beta gamma delta\r\u{1B}[O")
        try await terminal.waitFor("› ", after: start + 30)
        #expect(notifications(terminal) == 2, "the user switched away while the reply streamed")
        #expect(!terminal.text.contains("[O"), "the focus report was not echoed")
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0)
        #expect(
            terminal.rawOutput.hasSuffix("\u{1B}[?1004l") || terminal.rawOutput.contains("\u{1B}[?1004l"),
            "focus reports are turned off at the end")
    }
}
