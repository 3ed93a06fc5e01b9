import Foundation
import Testing
import TestSupport

/// `/run` on a real pseudo-terminal: a command's process group ends with the command.
@Suite struct ReplRunStopTests {
    /// The process id a command printed on a line of its own in the last message sent as context.
    private func printedPid(_ repl: ReplHarness) throws -> pid_t {
        let input = try #require(repl.fixture.requests(to: "/api/v1/chat").last?.field("input"))
        return try #require(input.split(separator: "\n").lazy.compactMap { pid_t($0) }.first, "\(input)")
    }

    @Test func aBackgroundChildHoldingTheOutputDoesNotHoldThePrompt() throws {
        let repl = try ReplHarness()
        let terminal = try repl.start()
        // No Ctrl-C: the prompt comes back when the shell exits, though `sleep` still holds the pipe.
        let ran = try terminal.enter("/run sh -c 'sleep 1000 & echo $!; echo bg'")
        #expect(ran.contains("It goes with your next message"), "\(ran)")
        try terminal.enter("echo:with it")
        let input = try #require(repl.fixture.requests(to: "/api/v1/chat").last?.field("input"))
        #expect(input.contains("\nbg\n```"), "what the command printed is kept: \(input)")
        #expect(ChildProbe.waitForEnd(of: try printedPid(repl)), "the background child is killed with the command's group")
    }
}
