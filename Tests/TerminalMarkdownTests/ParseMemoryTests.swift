import Markdown
import Testing

@testable import TerminalMarkdown

/// cmark-gfm parses texts up to `CmarkArena.largestParseBytes` in the arena and longer ones with its own allocator:
/// both read the same, a literal longer than the arena's chunks survives its growth, and a parse after a long one
/// (the arena's chunks reused, its large blocks released) reads as the first did.
struct ParseMemoryTests {
    static let paragraph = "Paragraph with *emphasis*, `code` and a [link](https://example.com/).\n\n"
    static let code = String(repeating: "let x = 1\n", count: 10_000)

    @Test func textsInTheArenaAndPastItReadTheSame() {
        let first = MarkdownParser.parse(Self.paragraph)
        #expect(first.count == 1)
        // 100 KB of code: its literal grows from a chunk's block into a block of its own.
        let fenced = "```\n" + Self.code + "```\n"
        #expect(MarkdownParser.parse(fenced).map(\.block) == [.codeBlock(info: "", literal: Self.code)])
        let repeats = CmarkArena.largestParseBytes / Self.paragraph.utf8.count + 1
        let long = MarkdownParser.parse(String(repeating: Self.paragraph, count: repeats) + fenced)
        #expect(long.count == repeats + 1)
        #expect(long.first?.block == first.first?.block)
        #expect(long.last?.block == .codeBlock(info: "", literal: Self.code))
        #expect(MarkdownParser.parse(Self.paragraph) == first)
    }
}
