import TestSupport
import Testing

@testable import TerminalMarkdown

/// Streaming equivalence on replies assembled at random from Markdown fragments, joined with and without blank
/// lines, so block boundaries land in places the hand-written corpus does not reach.
struct GeneratedReplyTests {
    static let fragments = [
        "Plain paragraph with *emphasis* and `code` that runs long enough to wrap at forty columns.",
        "# Heading one", "### Heading three", "Setext\n------",
        "- item a\n- item b\n  - nested c\n- item d",
        "1. one\n2. two\n3. three\n4. four",
        "- [ ] todo\n- [x] done",
        "```swift\nlet x = 1\n\nlet y = 2\n```",
        "~~~\ntilde fence\n~~~",
        "```\nunclosed fence line",
        "    indented code",
        "> quote\n> > nested\n> back",
        "| a | b |\n|---|---|\n| 1 | 2 |",
        "| h | i |\n|:-|-:|\n" + (1...12).map { "| r\($0) | \($0 * 7) |" }.joined(separator: "\n"),
        "Text glued\n| t | u |\n|---|---|\n| v | w |",
        "---",
        "<div>html block</div>",
        "Link [here](https://example.com) and https://auto.example and 日本語テキスト 🎉.",
        "Line with hard break  \nnext line",
        "* star list\n* second\n\n* loose third",
        "1. step\n   ```sh\n   make\n   ```\n2. next step\n\n   continued",
        "- a\nlazy continuation\n- b",
        "text before rule\n***",
        "para\n---",
        "1) paren one\n2) paren two",
        "> quoted\n```\nfence after quote\n```",
        "- item with table\n\n  | p | q |\n  |---|---|\n  | 1 | 2 |",
        "Windows line\r\nendings\r\n\r\nhere",
        "escape \u{1B}[31mred\u{1B}[0m and bell\u{07}",
        "**bold across\nlines** and _under_",
        "<span>inline html start</span> of paragraph",
        "\ttab indented code",
        "+ plus list\n+ more\n\n\n+ after two blanks"
    ]

    static func reply(seed: UInt64) -> String {
        var generator = SeededGenerator(seed: seed)
        var text = ""
        for _ in 0..<Int.random(in: 4...14, using: &generator) {
            text += fragments.randomElement(using: &generator)!
            text += ["\n\n", "\n", "\n\n\n"].randomElement(using: &generator)!
        }
        return Bool.random(using: &generator) ? String(text.dropLast()) : text
    }

    @Test(arguments: UInt64(0)..<100)
    func generatedReplyStreamsToTheWholeRender(seed: UInt64) {
        let text = Self.reply(seed: seed)
        for width in [80, 40] {
            let capabilities = TerminalCapabilities(width: width, height: 1000, hyperlinks: true)
            let expected = screenLines(
                MarkdownRenderer(capabilities: capabilities, mode: .always).render(text), width: width)
            for chunking in UInt64(0)..<3 {
                let output = streamedOutput(
                    Snapshots.random(text, seed: chunking, maxStep: 24), final: text, capabilities: capabilities)
                #expect(screenLines(output, width: width) == expected, "width \(width), chunking \(chunking)\n\(text)")
            }
        }
    }
}
