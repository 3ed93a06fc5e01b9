import Foundation
import Simulator
import TestSupport
import Testing

/// `/file`, `/url`, `/run` and `/context` in the REPL on a real pseudo-terminal, against the simulator.
@Suite(.spawnsProcesses) struct ReplContextTests {
    @Test func aFileWaitsAsAChipIsCountedByTheMeterAndGoesWithTheNextMessage() async throws {
        let repl = try ReplHarness()
        try repl.sandbox.write(String(repeating: "note ", count: 800), to: "notes.md")
        let path = repl.sandbox.root + "/notes.md"
        let terminal = try await repl.start(["-m", "acme/tiny-1b"])
        try await terminal.waitFor("(loaded)")
        let added = try await terminal.enter("/file " + path)
        #expect(added.contains("1. \(path) · 4 KB · ~"), "a one-line chip instead of the text: \(added)")
        #expect(!added.contains("note note"), "the file's text is not shown")
        #expect(added.contains("It goes with your next message"), "\(added)")
        let prompt = try await terminal.waitFor("› ")
        #expect(prompt.contains("+1 context"), "\(prompt)")
        #expect(
            prompt.contains("ctx 1k/") || prompt.contains("ctx 1.0k/"),
            "the meter counts the waiting item before sending: \(prompt)")
        try await terminal.enter("echo:got it")
        let input = try #require(repl.fixture.requests(to: "/api/v1/chat").last?.field("input"))
        #expect(input.hasPrefix("File \(path):\n```\nnote note"))
        #expect(input.hasSuffix("```\n\necho:got it"))
        let after = try await terminal.enter("/context")
        #expect(
            after.contains("No context items wait for the next message"), "the items went with that message: \(after)")
        let two = try await terminal.enter("/file \(path) \(path)")
        #expect(two.contains("They go with your next message"), "\(two)")
        #expect(try await terminal.enter("/context clear").contains("Context items cleared."))
        let start = terminal.mark
        terminal.send("/show\r")
        let show = try await terminal.waitFor("(END)", after: start)
        #expect(show.contains("📎 \(path) · 4 KB"), "the transcript lists what was sent: \(show)")
        let quit = terminal.mark
        terminal.send("q")
        try await terminal.waitFor("› ", after: quit)
    }

    @Test func commandOutputAndPagesAreChipsAndTheirTextNeverReachesTheTerminal() async throws {
        let repl = try ReplHarness()
        let pages = try PageServer(["/hostile": .ok("<title>\u{1B}]0;owned\u{07}</title><p>\u{1B}[2Jwiped</p>")])
        let terminal = try await repl.start()
        let ran = try await terminal.enter("/run printf 'x\\033[31mred\\n'; exit 4")
        #expect(
            ran.contains("1. printf 'x\\033[31mred\\n'; exit 4 · 10 B · ~") && ran.contains("exit status 4"), "\(ran)")
        let fetched = try await terminal.enter("/url " + pages.url + "/hostile")
        #expect(fetched.contains("2. \(pages.url)/hostile · "), "\(fetched)")
        #expect(
            !terminal.rawOutput.contains("\u{1B}[31mred") && !terminal.rawOutput.contains("\u{1B}[2J")
                && !terminal.rawOutput.contains("\u{1B}]0;owned"), "untrusted output never reaches the terminal raw")
        let listed = try await terminal.enter("/context")
        #expect(listed.contains("1. printf") && listed.contains("2. http://"), "\(listed)")
        try await terminal.enter("/context drop 1")
        try await terminal.enter("echo:fine")
        let input = try #require(repl.fixture.requests(to: "/api/v1/chat").last?.field("input"))
        #expect(input.hasPrefix("Page \(pages.url)/hostile (fetched "), "only the item left is sent: \(input)")
        #expect(!input.contains("Output of"))
    }

    /// A message that would nearly fill the context is offered a larger one: `g` reloads the model and sends it.
    @Test func aMessageNearlyFillingTheContextCanGrowIt() async throws {
        let repl = try ReplHarness()
        try repl.sandbox.write(String(repeating: "word ", count: 3_000), to: "notes.txt")
        let terminal = try await repl.start(["-m", "acme/tiny-1b"])
        try await terminal.enter("echo:one")
        try await terminal.enter("/file " + repl.sandbox.root + "/notes.txt")
        let start = terminal.mark
        terminal.send("echo:read these\r")
        let asked = try await terminal.waitFor("N: not now [g/r/s/N] ", after: start)
        let flat = asked.replacingOccurrences(of: "\n", with: " ")
        #expect(
            flat.contains("would nearly fill the context")
                && flat.contains("g: reload acme/tiny-1b with its context grown to 8k"), "\(asked)")
        let grown = try await terminal.enter("g")
        #expect(grown.contains("Loaded acme/tiny-1b") && grown.contains("context 8,192"), "\(grown)")
        #expect(grown.contains("read these"), "the message is answered: \(grown)")
        let prompt = try #require(grown.components(separatedBy: "\n").last { $0.contains("ctx ") }, "\(grown)")
        #expect(prompt.contains("/8k") && !prompt.contains("/4k"), "the next prompt shows the grown context: \(prompt)")
    }

    @Test func anOverflowIsRefusedBeforeSendingAndKeepsTheMessageAndItsItems() async throws {
        let repl = try ReplHarness()
        try repl.sandbox.write(String(repeating: "word ", count: 60_000), to: "long.txt")
        let path = repl.sandbox.root + "/long.txt"
        let terminal = try await repl.start(["-m", "acme/tiny-1b"])
        try await terminal.waitFor("(loaded)")
        try await terminal.enter("/file " + path)
        let start = terminal.mark
        terminal.send("echo:too much\r")
        let asked = try await terminal.waitFor("N: not now [s/N] ", after: start + 14)
        #expect(asked.contains("would overflow the context"), "\(asked)")
        #expect(!asked.contains("g: reload"), "no context of acme/tiny-1b holds 75k tokens: \(asked)")
        #expect(asked.contains("\(path) · 300 KB · ~75"), "the question names each item with its size: \(asked)")
        let refused = try await terminal.enter("")
        #expect(refused.contains("Nothing sent; the message is back in the line, with its items"), "\(refused)")
        #expect(repl.fixture.requests(to: "/api/v1/chat").isEmpty, "nothing is sent")
        let listed = try await terminal.enter("\u{15}/context")
        #expect(listed.contains("1. \(path)"), "the item still waits: \(listed)")
        try await terminal.enter("/context clear")
        #expect(try await terminal.enter("/context").contains("No context items wait"))
    }
}
