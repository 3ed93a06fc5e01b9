import Foundation
import TestSupport
import Testing

/// `/run` on a real pseudo-terminal: a command's process group ends with the command, and Ctrl-C and SIGTERM stop it.
@Suite(.spawnsProcesses) struct ReplRunStopTests {
    /// The process id a command printed on a line of its own in the last message sent as context.
    private func printedPid(_ repl: ReplHarness) throws -> pid_t {
        let input = try #require(repl.fixture.requests(to: "/api/v1/chat").last?.field("input"))
        return try #require(input.split(separator: "\n").lazy.compactMap { pid_t($0) }.first, "\(input)")
    }

    @Test func aBackgroundChildHoldingTheOutputDoesNotHoldThePrompt() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        // No Ctrl-C: the prompt comes back when the shell exits, though `sleep` still holds the pipe.
        let ran = try await terminal.enter("/run sh -c 'sleep 1000 & echo $!; echo bg'")
        #expect(ran.contains("It goes with your next message"), "\(ran)")
        try await terminal.enter("echo:with it")
        let input = try #require(repl.fixture.requests(to: "/api/v1/chat").last?.field("input"))
        #expect(input.contains("\nbg\n```"), "what the command printed is kept: \(input)")
        #expect(
            await ChildProbe.waitForEnd(of: try printedPid(repl)),
            "the background child is killed with the command's group")
    }

    @Test func ctrlCStopsARunningCommandWithItsChildrenAndTheNextLineRuns() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let fifo = repl.sandbox.root + "/pid"
        try ChildProbe.makeFIFO(fifo)
        // The shell waits on a background child, which ignores SIGINT as background jobs do.
        let start = try await terminal.sendLine("/run sleep 1000 & echo $! > \(fifo); wait")
        let child = try await ChildProbe.pid(fromFIFO: fifo)
        terminal.send("\u{3}")
        let stopped = try await terminal.outputBeforePrompt(after: start).split(whereSeparator: \.isWhitespace).joined(
            separator: " ")
        #expect(stopped.contains("was stopped before it finished; nothing was added"), "\(stopped)")
        #expect(await ChildProbe.waitForEnd(of: child), "the command's background child is killed with its group")
        let next = try await terminal.enter("/run echo after")
        #expect(
            next.contains("1. echo after · "), "the next line runs, and nothing of the stopped one was added: \(next)")
    }

    @Test func sigtermDuringACommandEndsTheReplAndTheCommand() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let fifo = repl.sandbox.root + "/pid"
        try ChildProbe.makeFIFO(fifo)
        _ = try await terminal.sendLine("/run echo $$ > \(fifo); exec sleep 1000")
        let command = try await ChildProbe.pid(fromFIFO: fifo)
        kill(terminal.pid, SIGTERM)
        #expect(try await terminal.waitForExit() == 128 + SIGTERM)
        #expect(await ChildProbe.waitForEnd(of: command), "the command does not outlive llmster")
    }
}
