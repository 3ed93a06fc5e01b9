import Foundation
import Simulator
import Testing
import TestSupport

@Suite struct ReplTests {
    @Test func messageGetsItsRenderedReplyAndTheContextFigureChanges() throws {
        let repl = try ReplHarness()
        let terminal = try repl.start()
        #expect(terminal.text.contains("acme/tiny-1b (loaded)"), "the prompt names the model and its state")
        #expect(terminal.text.contains("ctx 0/4k 0%"))
        let shown = try terminal.enter("echo:Hello from **the** simulator.")
        let lines = shown.components(separatedBy: "\n")
        #expect(lines.contains { $0.hasSuffix("Hello from the simulator.") }, "the Markdown is rendered: \(shown)")
        let prompt = try #require(lines.last { $0.contains("ctx ") })
        #expect(!prompt.contains("ctx 0/4k"), "the context figure grew after the reply: \(prompt)")
        terminal.send("\u{4}")
        #expect(try terminal.waitForExit() == 0)
    }

    @Test func tabCompletesCommandNames() throws {
        let repl = try ReplHarness()
        let terminal = try repl.start()
        var start = terminal.mark
        terminal.send("/mo\t")
        try terminal.waitFor("/model", after: start)
        start = terminal.mark
        terminal.send("\t\t")
        let listed = try terminal.waitFor("/models", after: start)
        #expect(listed.contains("/model"), "both candidates are listed: \(listed)")
        start = terminal.mark
        terminal.send("s\r")
        let table = try terminal.waitFor("› ", after: start)
        #expect(table.contains("MODEL") && table.contains("acme/thinker-8b"), "/models ran: \(table)")
    }

    @Test func tabCompletesModelKeys() throws {
        let repl = try ReplHarness()
        let terminal = try repl.start()
        let start = terminal.mark
        terminal.send("/model acme/thi\t")
        try terminal.waitFor("acme/thinker-8b", after: start)
    }

    @Test func ctrlCDuringAReplyKeepsThePartialReplyAndReturnsToThePrompt() throws {
        let repl = try ReplHarness()
        let terminal = try repl.start()
        terminal.send("[[sim:stall=30]] echo:alpha beta gamma delta epsilon\r")
        try terminal.waitFor("epsilon")
        let start = terminal.mark
        try terminal.waitFor("alpha", after: start)
        terminal.send("\u{3}")
        let after = try terminal.waitFor("› ", after: start)
        let reply = try #require(after.components(separatedBy: "[acme/tiny-1b").first)
        #expect(reply.contains("incomplete"), "\(after)")
        #expect(!reply.contains("epsilon"))
        terminal.send("\u{4}")
        #expect(try terminal.waitForExit() == 0)
        let chats = try repl.run(["chats", "--json"])
        let list = try JSONSerialization.jsonObject(with: Data(chats.output.utf8)) as? [[String: Any]]
        let show = try repl.run(["show", try #require(list?.first?["id"] as? String)])
        #expect(show.output.contains("incomplete"), "\(show)")
        #expect(show.output.contains("alpha"))
    }

    @Test func draftComesBackAfterOpeningAnotherChatAndReturning() throws {
        let repl = try ReplHarness()
        let terminal = try repl.start()
        try terminal.enter("echo:first chat")
        terminal.send("half-written thought")
        try terminal.waitFor("half-written thought")
        terminal.send("\u{3}")
        try terminal.waitFor("^C")
        try terminal.enter("/new")
        try terminal.enter("echo:second chat")
        let start = terminal.mark
        terminal.send("/open echo:first chat\r")
        let reopened = try terminal.waitFor("half-written thought", after: start + 20)
        #expect(reopened.contains("Opened"))
    }

    @Test func historySurvivesARestart() throws {
        let repl = try ReplHarness()
        let first = try repl.start()
        try first.enter("/ps")
        try first.enter(" /chats")
        first.send("\u{4}")
        _ = try first.waitForExit()
        let second = try repl.start()
        let start = second.mark
        second.send("\u{10}")
        try second.waitFor("/ps", after: start)
        #expect(!second.text.dropFirst(start).contains("/chats"), "a line starting with a space is not recorded")
    }

    @Test func choosingAModelAppliesTheLoadPolicy() throws {
        let repl = try ReplHarness()
        let terminal = try repl.start()
        try terminal.enter("echo:on the tiny model")
        let shown = try terminal.enter("/model acme/thinker-8b")
        #expect(shown.contains("Unloaded acme/tiny-1b"), "\(shown)")
        let unloads = repl.fixture.requests(to: "/api/v1/models/unload")
        #expect(unloads.count == 1)
        #expect(unloads.first?.field("instance_id") == "acme/tiny-1b")
        #expect(repl.fixture.requests(to: "/api/v1/models/load").first?.field("model") == "acme/thinker-8b")
        #expect(shown.contains("acme/thinker-8b (loaded)"), "the prompt shows the new model: \(shown)")
    }

    @Test func badCommandsAndBadArgumentsGetUsageNotACrash() throws {
        let repl = try ReplHarness()
        let terminal = try repl.start()
        let unknown = try terminal.enter("/modle acme/tiny-1b")
        #expect(unknown.contains("unknown command /modle (did you mean /model"), "\(unknown)")
        let bad = try terminal.enter("/set temperature hot")
        #expect(bad.contains("usage: /set KEY VALUE"), "\(bad)")
        let worse = try terminal.enter("/models --colour")
        #expect(worse.contains("usage: /models"), "\(worse)")
        let quote = try terminal.enter("/mv \"unclosed")
        #expect(quote.contains("usage: /mv"), "\(quote)")
        terminal.send("/quit\r")
        #expect(try terminal.waitForExit() == 0)
    }

    @Test func pipedInputSendsEachLineAndExitsAtTheEnd() throws {
        let repl = try ReplHarness()
        let result = try ProcessRunner.run(try BuiltProduct.path("llmster"), [], environment: repl.environment,
                                           input: "echo:first answer\necho:second answer\n")
        #expect(result.status == 0, "\(result)")
        #expect(result.output == "first answer\nsecond answer\n")
    }
}
