import Testing

@testable import Console

/// A draft goes into the library as the message it sends and comes back as the line that sends that message.
@Suite struct DraftTextTests {
    @Test(arguments: ["plain words", "/etc/hosts maps names", "//two slashes", "a\n/second line"])
    func aMessageComesBackAsTheLineThatSendsIt(message: String) {
        #expect(DraftText.message(fromLine: DraftText.line(fromMessage: message)) == message)
    }

    @Test func anEscapedLineAndAnEditAreKeptAsTheirMessages() {
        #expect(DraftText.message(fromLine: "//new ideas") == "/new ideas")
        #expect(DraftText.message(fromLine: "/edit better words") == "better words")
        #expect(DraftText.line(fromMessage: "/new ideas") == "//new ideas")
        // Blanks before a slash would let Enter run it as a command; the REPL trims them from any typed line.
        #expect(DraftText.line(fromMessage: "  /indented") == "//indented")
    }
}
