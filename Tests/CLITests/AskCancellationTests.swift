import Foundation
import Library
import Simulator
import TestSupport
import Testing

/// Ctrl-C on a terminal stops the drawing of a reply that has already arrived whole, which is saved complete.
@Suite(.spawnsProcesses) struct AskCancellationTests {
    /// The simulator sends 8 MiB of Markdown as fast as the socket takes it, and the terminal stops reading after the
    /// first section (as a slow one would): the reply is saved complete while the start of it is on the screen.
    /// Ctrl-C then adds the end line and nothing else (at most the rest of the piece being written), and the reply
    /// stays saved whole.
    @Test func ctrlCDuringARenderedBacklogDrawsOnlyTheEndLine() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let terminal = try Pseudoterminal(
            try BuiltProduct.path("llmster"),
            ["--markdown", "always", "ask", "[[sim:large=\(8 << 20),delta=4096]] backlog"],
            environment: cli.environment, width: 100, height: 40)
        _ = try await terminal.waitFor("Section 1")
        terminal.pauseReading()
        let saved = try #require(
            try await cli.sandbox.waitForReply(seconds: 120) { $0.status == .complete },
            "the reply was not saved complete within 120 s")
        let mark = terminal.mark
        terminal.send("\u{3}")
        terminal.resumeReading()
        #expect(try await terminal.waitForExit() == 130)

        let sections = saved.text.components(separatedBy: "## Section ").count - 1
        #expect(saved.text.utf8.count >= 8 << 20 && saved.text.hasSuffix("> A quote closing section \(sections).\n\n"))
        let output = terminal.text
        #expect(!output.contains("closing section \(sections)."), "the end of the reply was drawn")
        let after = String(output.dropFirst(mark))
        let lastLine = after.split(separator: "\n").last.map(String.init) ?? ""
        #expect(lastLine.contains("shown in part"), "the end line says the reply was not all drawn: \(lastLine)")
        // Read after the signal: what the pseudo-terminal held (at most 64 KiB, about 80 sections) and the rest of the
        // piece being written (`TerminalSink.writeLines`, 16 KiB, about 20); the whole step written after the signal
        // (`ReplyDisplay.renderStepBytes` of answer) would be about 160.
        let drawnAfter = after.components(separatedBy: "Section ").count - 1
        #expect(drawnAfter < 120, "\(drawnAfter) sections drawn after Ctrl-C")
    }

    /// Keys typed while `ask` draws its reply on a terminal are not echoed into the drawing, and neither is Ctrl-C's
    /// `^C` (it used to follow the last live row); the terminal is cooked again when llmster exits.
    @Test func keysTypedDuringTheReplyAreNotEchoedIntoIt() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let terminal = try Pseudoterminal(
            try BuiltProduct.path("llmster"), ["ask", "[[sim:stall=30]] echo:alpha beta gamma delta epsilon"],
            environment: cli.environment, width: 100, height: 40)
        _ = try await terminal.waitFor("alpha")
        #expect(try await terminal.typeLineThenInterrupt("typed meanwhile") == 130)
        let output = terminal.text
        #expect(!output.contains("typed meanwhile"), "\(output)")
        #expect(!output.contains("^C"), "\(output)")
        #expect(output.contains("incomplete"), "\(output)")
        #expect(terminal.isCooked)
    }
}
