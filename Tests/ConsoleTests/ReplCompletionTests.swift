import Foundation
import Simulator
import Testing
import TestSupport

/// Tab completion offers what exists now, titles with spaces included.
@Suite struct ReplCompletionTests {
    @Test func oneTabOnAnAmbiguousCommandListsEveryMatch() throws {
        let repl = try ReplHarness()
        let terminal = try repl.start()
        let start = terminal.mark
        terminal.send("/mo\t")
        let listed = try terminal.waitFor("/models", after: start)
        #expect(listed.contains("/model\n"), "both /model and /models are listed: \(listed)")
    }

    @Test func aChatCreatedInThisSessionIsOfferedQuotedToOpen() throws {
        let repl = try ReplHarness()
        let terminal = try repl.start()
        try terminal.enter("/new Project plans for spring")
        try terminal.enter("/new")
        var start = terminal.mark
        terminal.send("/open Proj\t")
        try terminal.waitFor("\"Project plans for spring\"", after: start)
        #expect(try terminal.enter("").contains("Opened Project plans for spring."))
        try terminal.enter("/new")
        start = terminal.mark
        terminal.send("/open \"Project pl\t")
        try terminal.waitFor("Project plans for spring\"", after: start)
        #expect(try terminal.enter("").contains("Opened Project plans for spring."))
    }

    @Test func modelAliasesAndServerProfilesAreOffered() throws {
        let repl = try ReplHarness()
        try repl.sandbox.write("alias.speedy = acme/tiny-1b\nserver.gpurig = \(repl.fixture.url)\n", to: "config/llmster/config")
        let terminal = try repl.start()
        var start = terminal.mark
        terminal.send("/model spe\t")
        try terminal.waitFor("/model speedy ", after: start)
        #expect(try terminal.enter("").contains("now uses acme/tiny-1b"))
        start = terminal.mark
        terminal.send("/server gpu\t")
        try terminal.waitFor("/server gpurig ", after: start)
        #expect(try terminal.enter("").contains("Now talking to gpurig"))
    }
}
