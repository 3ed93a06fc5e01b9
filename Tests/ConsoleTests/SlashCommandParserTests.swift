import Foundation
import Testing

@testable import Console

@Suite struct SlashCommandParserTests {
    @Test func knownCommandWithOptionsAndPositionals() throws {
        guard
            case .command(let command, let arguments) = SlashLine.parse(
                "/models --vision --sort size", commands: ReplCommands.all)
        else {
            Issue.record("not parsed as a command")
            return
        }
        #expect(command.name == "models")
        #expect(arguments.has(.vision))
        #expect(arguments.value(.sort) == "size")
    }

    @Test func quotesKeepSpacesInOneArgument() throws {
        guard
            case .command(_, let arguments) = SlashLine.parse(
                "/mv 'my chat' \"Work/Deep Research\"", commands: ReplCommands.all)
        else {
            Issue.record("not parsed as a command")
            return
        }
        #expect(arguments.positionals == ["my chat", "Work/Deep Research"])
    }

    @Test func backslashesOutsideQuotesTakeTheNextCharacterLiterally() throws {
        #expect(
            try SlashLine.words(#"SSE\ notes.llmster 'a\b' x\\y end\"#) == [
                "SSE notes.llmster", #"a\b"#, #"x\y"#, #"end\"#
            ])
    }

    @Test func textCommandsTakeTheRestOfTheLineVerbatim() throws {
        guard
            case .command(let command, let arguments) = SlashLine.parse(
                "/system  be terse --no fluff", commands: ReplCommands.all)
        else {
            Issue.record("not parsed as a command")
            return
        }
        #expect(command.name == "system")
        #expect(arguments.positionals == ["be terse --no fluff"])
    }

    @Test(arguments: [("hepl", "help"), ("modle", "model"), ("modles", "models"), ("sav", "save")])
    func unknownCommandSuggestsTheNearest(typed: String, expected: String) {
        guard case .unknown(let name, let suggestion) = SlashLine.parse("/" + typed, commands: ReplCommands.all) else {
            Issue.record("an unknown command was accepted")
            return
        }
        #expect(name == typed)
        #expect(suggestion == expected)
    }

    @Test func badOptionsAndOpenQuotesAreUsageErrors() {
        guard case .badArguments(let command, _) = SlashLine.parse("/models --colour", commands: ReplCommands.all)
        else {
            Issue.record("a bad option was accepted")
            return
        }
        #expect(command.usageLine.description.hasPrefix("usage: /models"))
    }

    @Test func wordsRejectAnOpenQuote() {
        #expect(throws: UsageError.self) { try SlashLine.words("\"open") }
        #expect((try? SlashLine.words("a  'b c' d")) == ["a", "b c", "d"])
    }

    @Test func commandNamesComplete() {
        let matches = CompletionData().complete(CompletionRequest(before: "", word: "/mo"))
        #expect(matches == ["/models", "/model"])
        #expect(CompletionRequest.commonPrefix(of: matches) == "/model")
    }

    @Test func setKeysAndOptionsComplete() {
        let data = CompletionData()
        #expect(data.complete(CompletionRequest(before: "/set ", word: "te")) == ["temperature"])
        #expect(data.complete(CompletionRequest(before: "/models ", word: "--vi")) == ["--vision"])
        #expect(CompletionRequest(before: "/attach ", word: "~/pi").wantsPaths)
    }

    @Test func reasoningValuesAreTheCurrentModelsOwn() {
        let data = CompletionData()
        data.update(reasoningOptions: ["off", "low", "high"])
        #expect(data.complete(CompletionRequest(before: "/set reasoning ", word: "")) == ["off", "low", "high"])
        data.update(reasoningOptions: [])
        #expect(data.complete(CompletionRequest(before: "/set reasoning ", word: "")).isEmpty)
    }
}

@Suite struct InputAssemblerTests {
    @Test func aPlainLineIsAMessage() {
        var assembler = InputAssembler()
        #expect(assembler.add("hello") == "hello")
        #expect(!assembler.isContinuing)
    }

    @Test func trailingBackslashContinues() {
        var assembler = InputAssembler()
        #expect(assembler.add("first \\") == nil)
        #expect(assembler.isContinuing)
        #expect(assembler.add("second") == "first \nsecond")
    }

    @Test func tripleQuoteBlocksKeepEveryLine() {
        var assembler = InputAssembler()
        #expect(assembler.add("\"\"\"") == nil)
        #expect(assembler.add("line one \\") == nil)
        #expect(assembler.add("") == nil)
        #expect(assembler.pending == "line one \\\n")
        #expect(assembler.add("\"\"\"") == "line one \\\n")
    }

    @Test func aPasteIsTextAsItStands() {
        var assembler = InputAssembler()
        assembler.nextLineIsPasted = true
        #expect(assembler.add("\"\"\"\nA docstring.\n\"\"\"") == "\"\"\"\nA docstring.\n\"\"\"")
        assembler.nextLineIsPasted = true
        #expect(assembler.add("ends in a backslash \\") == "ends in a backslash \\")
        #expect(assembler.add("\"\"\"") == nil)
        assembler.nextLineIsPasted = true
        #expect(assembler.add("\"\"\"") == nil, "a pasted line is text in a block: it does not close it")
        #expect(assembler.add("\"\"\"") == "\"\"\"")
    }
}

@Suite struct HistoryFileTests {
    @Test func multiLineEntriesSurviveTheFile() throws {
        let path = FileManagerPath.temporary("history")
        let history = HistoryFile(path: path)
        history.append("two\nlines with a \\ backslash")
        history.append("/ps")
        #expect(HistoryFile(path: path).entries == ["two\nlines with a \\ backslash", "/ps"])
    }

    @Test func keepsOnlyTheLatestEntries() {
        let path = FileManagerPath.temporary("history")
        let history = HistoryFile(path: path, limit: 2)
        for entry in ["a", "b", "c"] { history.append(entry) }
        #expect(HistoryFile(path: path).entries == ["b", "c"])
    }
}

@Suite struct ClipboardTests {
    @Test func codeBlocksAreFoundInOrder() {
        let markdown = "Intro\n\n```swift\nlet a = 1\n```\n\ntext\n\n~~~\nplain\n~~~\n"
        #expect(Clipboard.codeBlocks(in: markdown) == ["let a = 1", "plain"])
    }
}
