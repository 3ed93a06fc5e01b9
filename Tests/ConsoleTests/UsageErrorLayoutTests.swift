import Foundation
import TerminalMarkdown
import TestSupport
import Testing

/// A usage error on a narrow terminal wraps its usage line between bracketed groups, as `--help` does: no option is
/// cut from its value (`[--flash-attention` / `on|off]`, where wrapping at any space breaks `load`'s usage at 50
/// columns).
@Suite(.spawnsProcesses) struct UsageErrorLayoutTests {
    @Test func aUsageErrorWrapsItsUsageBetweenGroups() async throws {
        let terminal = try Pseudoterminal(
            try BuiltProduct.path("llmster"), ["load", "--bogus"], environment: try Sandbox().environment(server: ""),
            width: 50)
        #expect(try await terminal.waitForExit() == 2)
        let lines = terminal.text.split(separator: "\n").map(String.init)
        let usage = lines.drop { !$0.hasPrefix("usage: llmster load") }
        try #require(usage.count > 1, "\(lines)")
        for line in usage {
            #expect(line.filter { $0 == "[" }.count == line.filter { $0 == "]" }.count, "a group is cut: \(lines)")
            #expect(line.count <= 50, "\(line)")
        }
    }

    /// A slash command's usage error in the REPL wraps the same way.
    @Test func aSlashCommandsUsageErrorWrapsBetweenGroups() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start(width: 50)
        let echoed = try await terminal.sendLine("/load --bogus")
        try await terminal.waitFor("› ", after: echoed)
        var screen = TerminalScreen(width: 50, height: 80, widthOf: DisplayWidth.of)
        screen.apply(terminal.rawOutput)
        let lines = screen.lines
        let first = try #require(lines.firstIndex { $0.hasPrefix("usage: /load") }, "\(lines)")
        let usage = [lines[first]] + lines[(first + 1)...].prefix { $0.hasPrefix("    ") }
        try #require(usage.count > 1, "\(lines)")
        for line in usage {
            #expect(line.filter { $0 == "[" }.count == line.filter { $0 == "]" }.count, "a group is cut: \(lines)")
        }
    }
}
