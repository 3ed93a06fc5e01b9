import Foundation
import TestSupport
import Testing

/// `/save` into a FIFO or through a symlink, and `/file` of a FIFO, on a real pseudo-terminal.
@Suite(.spawnsProcesses) struct ReplSpecialPathTests {
    @Test func saveWritesAFIFOInPlaceAndASymlinksTarget() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:The **answer** is 42.")
        let fifo = try FIFO(repl.sandbox.root + "/pipe")
        let saved = try await terminal.enter("/save --last " + fifo.path)
        #expect(
            saved.contains("written in place") && !saved.contains("replace it?"),
            "a FIFO is written, not replaced: \(saved)")
        #expect(fifo.isStillAFIFO)
        #expect(fifo.drain() == Array("The **answer** is 42.\n".utf8))

        try repl.sandbox.write("old\n", to: "dotfiles/answer.md")
        let link = repl.sandbox.root + "/answer.md"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "dotfiles/answer.md")
        let start = terminal.mark
        terminal.send("/save --last " + link + "\r")
        try await terminal.waitFor("exists; replace it? [y/N]", after: start)
        try await terminal.enter("y")
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: link) == "dotfiles/answer.md",
            "the link stays a link")
        #expect(
            try String(contentsOfFile: repl.sandbox.root + "/dotfiles/answer.md", encoding: .utf8)
                == "The **answer** is 42.\n")
    }

    @Test func fileOfAFIFOIsRefusedAtOnceAndTheNextLineRuns() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let fifo = try FIFO(repl.sandbox.root + "/pipe")
        let refused = try await terminal.enter("/file " + fifo.path)
        let unwrapped = refused.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(unwrapped.contains("pipe is a FIFO (named pipe), not a regular file"), "\(refused)")
        let next = try await terminal.enter("/context")
        #expect(next.contains("No context items wait for the next message"), "\(next)")
    }
}
