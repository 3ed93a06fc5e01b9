import Foundation
import TestSupport
import Testing

/// A usage error on a narrow terminal wraps its usage line between bracketed groups, as `--help` does: no option is
/// cut from its value (`[--flash-attention` / `on|off]`).
@Suite(.spawnsProcesses) struct UsageErrorLayoutTests {
    @Test func aUsageErrorWrapsItsUsageBetweenGroups() async throws {
        let terminal = try Pseudoterminal(
            try BuiltProduct.path("llmster"), ["load", "--bogus"], environment: try Sandbox().environment(server: ""),
            width: 40)
        #expect(try await terminal.waitForExit() == 2)
        let lines = terminal.text.split(separator: "\n").map(String.init)
        let usage = lines.drop { !$0.hasPrefix("usage: llmster load") }
        try #require(usage.count > 1, "\(lines)")
        for line in usage {
            #expect(line.filter { $0 == "[" }.count == line.filter { $0 == "]" }.count, "a group is cut: \(lines)")
            #expect(line.count <= 40, "\(line)")
        }
    }
}
