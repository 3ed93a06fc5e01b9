import Foundation
import Simulator
import TestSupport
import Testing

/// Tab completion offers what exists now, titles with spaces included.
@Suite(.spawnsProcesses) struct ReplCompletionTests {
    @Test func oneTabOnAnAmbiguousCommandListsEveryMatch() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let start = terminal.mark
        terminal.send("/mo\t")
        let listed = try await terminal.waitFor("/models", after: start)
        #expect(
            listed.split(separator: "\n").contains { $0.hasPrefix("/model ") && $0.hasSuffix(" /models") },
            "both /model and /models are listed, side by side: \(listed)")
    }

    @Test(arguments: [60, 100])
    func theCommandListIsInColumnsAndNotRepeatedOnTheNextTab(width: Int) async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start(width: width, height: 40)
        let start = terminal.mark
        terminal.send("/\t")
        // Columns run down the rows, so no one name is drawn last: wait for names from every column.
        var listed = ""
        for name in ["/help", "/quit", "/unpin", "/voice"] {
            let seen = try await terminal.waitFor(name, after: start)
            if seen.count > listed.count { listed = seen }
        }
        let rows = listed.split(separator: "\n").filter { $0.hasPrefix("/") }
        #expect(rows.count < 16, "the \(36) commands take a few rows in columns: \(rows)")
        #expect(rows.allSatisfy { $0.count <= width }, "every row fits the terminal: \(rows)")
        #expect(listed.contains("/help") && listed.contains("/quit"))
        let again = terminal.mark
        terminal.send("\th\t")
        try await terminal.waitFor("elp", after: again)
        #expect(!terminal.text.dropFirst(again).contains("/unpin"), "a second Tab on the same line lists nothing again")
    }

    @Test func aListTallerThanTheScreenIsCutWithANote() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start(width: 20, height: 8)
        let start = terminal.mark
        terminal.send("/\t")
        let listed = try await terminal.waitFor("more; type more of the word", after: start)
        let rows = listed.split(separator: "\n").filter { $0.hasPrefix("/") && $0.count > 1 }
        #expect(rows.count <= 4, "the list leaves the prompt on the screen: \(listed)")
    }

    @Test func aHelpTallerThanTheScreenGoesThroughThePager() async throws {
        let repl = try ReplHarness(environment: ["PAGER": "sed s/^/paged:/"])
        let terminal = try await repl.start(height: 40)
        let paged = try await terminal.enter("/help")
        #expect(paged.contains("paged:  /model"), "\(paged)")
        let tall = try await repl.start(height: 200)
        let printed = try await tall.enter("/help")
        #expect(printed.contains("  /model") && !printed.contains("paged:"), "help that fits is printed: \(printed)")
    }

    @Test func aChatCreatedInThisSessionIsOfferedQuotedToOpen() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("/new Project plans for spring")
        try await terminal.enter("/new")
        var start = terminal.mark
        terminal.send("/open Proj\t")
        try await terminal.waitFor("\"Project plans for spring\"", after: start)
        #expect(try await terminal.enter("").contains("Opened Project plans for spring."))
        try await terminal.enter("/new")
        start = terminal.mark
        terminal.send("/open \"Project pl\t")
        try await terminal.waitFor("Project plans for spring\"", after: start)
        #expect(try await terminal.enter("").contains("Opened Project plans for spring."))
    }

    @Test func modelAliasesAndServerProfilesAreOffered() async throws {
        let repl = try ReplHarness()
        try repl.sandbox.write(
            "alias.speedy = acme/tiny-1b\nserver.gpurig = \(repl.fixture.url)\n", to: "config/llmster/config")
        let terminal = try await repl.start()
        var start = terminal.mark
        terminal.send("/model spe\t")
        try await terminal.waitFor("/model speedy ", after: start)
        #expect(try await terminal.enter("").contains("now uses acme/tiny-1b"))
        start = terminal.mark
        terminal.send("/server gpu\t")
        try await terminal.waitFor("/server gpurig ", after: start)
        #expect(try await terminal.enter("").contains("Now talking to gpurig"))
    }
}
