import TestSupport
import Testing

@testable import TerminalMarkdown

/// Raw HTML that replies use for layout, and task boxes in block quotes.
struct HTMLAndTaskTests {
    static let document = """
        > **Checklist**
        > - [ ] open task in a quote
        > - [x] finished task in a quote

        <details>
        <summary>Click to expand the full build log</summary>

        Hidden *text* inside the details.

        </details>

        Press <kbd>Ctrl</kbd>+<kbd>C</kbd> to stop; water is H<sub>2</sub>O, area is r<sup>2</sup>, \
        the n<sup>th</sup> item, a line<br>break and <!-- an inline comment -->no comment.

        <!-- a block comment
        over two lines -->

        <div align="center">kept, dimmed</div>

        After the HTML.
        """

    private func render(_ text: String, width: Int, dumb: Bool = false) -> String {
        MarkdownRenderer(capabilities: TerminalCapabilities(isDumb: dumb, width: width), mode: .always).render(text)
    }

    @Test(arguments: [40, 80, 120])
    func htmlAndTasksMatchGolden(width: Int) {
        assertGolden(
            render(Self.document, width: width), named: "html-tasks.color-\(width)",
            in: snapshotDirectory(for: #filePath))
        assertGolden(
            render(Self.document, width: width, dumb: true), named: "html-tasks.dumb-\(width)",
            in: snapshotDirectory(for: #filePath))
    }

    @Test func whatTheUserSees() {
        let output = render(Self.document, width: 120, dumb: true)
        #expect(output.contains("│ • ☐ open task in a quote"))
        #expect(output.contains("│ • ☑ finished task in a quote"))
        #expect(output.contains("▸ Click to expand the full build log"))
        #expect(!output.contains("<details>") && !output.contains("<summary>") && !output.contains("<kbd>"))
        #expect(
            output.contains(
                "Press [Ctrl]+[C] to stop; water is H₂O, area is r², the nth item, a line\nbreak and no comment."))
        #expect(!output.contains("comment -->") && !output.contains("block comment"))
        #expect(output.contains("<div align=\"center\">kept, dimmed</div>\n\nAfter the HTML."))
    }

    /// Streams without the HTML comment block: cmark-gfm 0.29 misreports where such blocks end, which
    /// `MarkdownStream` works around separately.
    @Test(arguments: [40, 80])
    func streamedHTMLEndsOnTheScreenOfTheWholeRender(width: Int) {
        let text = Self.document.replacingOccurrences(of: "<!-- a block comment\nover two lines -->\n\n", with: "")
        let capabilities = TerminalCapabilities(width: width, height: 1000)
        let expected = screenLines(
            MarkdownRenderer(capabilities: capabilities, mode: .always).render(text), width: width)
        for seed in UInt64(0)..<20 {
            let output = streamedOutput(Snapshots.random(text, seed: seed), final: text, capabilities: capabilities)
            #expect(screenLines(output, width: width) == expected, "seed \(seed)")
        }
    }

    /// `<!DOCTYPE html>` then `<html>` on the next line: cmark-gfm makes two blocks of them, but no blank line is
    /// shown between them that the source does not have, whole or streamed.
    @Test(arguments: [40, 80])
    func adjacentHTMLBlocksShowNoBlankLineBetweenThem(width: Int) {
        let text = "<!DOCTYPE html>\n<html>\n<body>hello</body>\n</html>\n\n<!-- note -->\n<div>after</div>\n"
        let capabilities = TerminalCapabilities(width: width, height: 1000)
        let whole = MarkdownRenderer(capabilities: capabilities, mode: .always).render(text)
        let expected = screenLines(whole, width: width)
        #expect(
            expected.filter { !$0.isEmpty } == [
                "<!DOCTYPE html>", "<html>", "<body>hello</body>", "</html>", "<div>after</div>"
            ])
        #expect(expected.firstIndex(of: "<html>") == 1, "\(expected)")
        for seed in UInt64(0)..<20 {
            let output = streamedOutput(Snapshots.random(text, seed: seed), final: text, capabilities: capabilities)
            #expect(screenLines(output, width: width) == expected, "seed \(seed)")
        }
    }
}
