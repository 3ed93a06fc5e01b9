import Markdown
import TestSupport
import Testing

@testable import TerminalMarkdown

/// GFM footnotes: superscript references, definitions at the end.
struct FootnoteTests {
    static let document = """
        Swift is memory-safe[^1] and Go has a garbage collector[^2], while a named note[^gc] explains more.

        Text before the definitions.

        [^1]: See the Swift book, chapter on memory safety.

        [^2]: The Go GC guide describes the pacer,
        over two lines.

        [^gc]: Garbage collection trades pause time for throughput.
        [^3]: A definition on the next line.
        """

    private func render(_ text: String, width: Int, dumb: Bool = false, utf8: Bool = true) -> String {
        let capabilities = TerminalCapabilities(isDumb: dumb, isUTF8: utf8, width: width)
        return MarkdownRenderer(capabilities: capabilities, mode: .always).render(text)
    }

    @Test(arguments: [40, 80, 120])
    func footnotesMatchGolden(width: Int) {
        assertGolden(
            render(Self.document, width: width), named: "footnotes.color-\(width)",
            in: snapshotDirectory(for: #filePath))
        assertGolden(
            render(Self.document, width: width, dumb: true, utf8: false), named: "footnotes.ascii-\(width)",
            in: snapshotDirectory(for: #filePath))
    }

    /// A footnote's later paragraphs, indented four spaces as GFM writes them, keep the note's indent (CommonMark
    /// without footnotes reads them as code), streamed and whole alike; indented code elsewhere stays code.
    @Test func aFootnotesSecondParagraphKeepsItsIndent() {
        let text =
            "Text.[^1]\n\n[^1]: The first paragraph of the note.\n\n    A second paragraph, with *emphasis*.\n\n"
            + "    A third one.\n\nAfter.\n\n    real code\n"
        let capabilities = TerminalCapabilities(noColor: true, width: 60, height: 1000)
        let whole = screenLines(MarkdownRenderer(capabilities: capabilities, mode: .always).render(text), width: 60)
        #expect(
            whole == [
                "Text.¹", "", "¹ The first paragraph of the note.", "", "  A second paragraph, with emphasis.", "",
                "  A third one.", "", "After.", "", "```", "real code", "```"
            ])
        for seed in UInt64(0)..<8 {
            let streamed = streamedOutput(
                Snapshots.random(text, seed: seed, maxStep: 12), final: text, capabilities: capabilities)
            #expect(screenLines(streamed, width: 60) == whole, "seed \(seed)")
        }
    }

    @Test func referencesBecomeMarkersAndDefinitionsComeLast() {
        let lines = render(Self.document, width: 80, dumb: true).split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("Swift is memory-safe¹ and Go has a garbage collector²"))
        #expect(!lines.joined().contains("[^"))
        #expect(lines.contains("¹ See the Swift book, chapter on memory safety."))
        #expect(lines.contains("² The Go GC guide describes the pacer, over two lines."))
        #expect(lines.contains { $0.hasPrefix("[gc] Garbage collection") })
        #expect(lines.last == "³ A definition on the next line.")
        #expect(
            render("Not a note: [^ spaced] and `[^1]`.", width: 80, dumb: true)
                == "Not a note: [^ spaced] and `[^1]`.\n")
    }

    /// A reference is marked when printed, before the definitions below it can have arrived; one that no
    /// definition answers is named, as written, after the last block, streamed and whole alike (in a quote, a list
    /// item and a table cell too), so the reader does not look for note 3.
    @Test func referencesNoDefinitionAnswersAreNamedAtTheEnd() {
        let text =
            "Some claim [^1][^3].\n\n> quoted[^Q]\n\n- item[^4]\n- other\n\n| a | b |\n|---|---|\n| x[^5] | y |\n\n"
            + "[^1]: The only note.\n[^q]: Labels match whatever their case.\n"
        let capabilities = TerminalCapabilities(noColor: true, width: 60, height: 1000)
        let whole = screenLines(MarkdownRenderer(capabilities: capabilities, mode: .always).render(text), width: 60)
        #expect(whole.first == "Some claim ¹³.")
        #expect(
            whole.suffix(2).joined(separator: " ")
                == "Footnotes `[^3]`, `[^4]` and `[^5]` are not defined in this reply.",
            "\(whole)")
        for seed in UInt64(0)..<12 {
            let streamed = streamedOutput(
                Snapshots.random(text, seed: seed, maxStep: 9), final: text, capabilities: capabilities)
            #expect(screenLines(streamed, width: 60) == whole, "seed \(seed)")
        }
        let reference = MarkdownRenderer(capabilities: capabilities, mode: .always)
        var nested = MarkdownStream(renderer: reference.blockRenderer, rendersMarkdown: true)
        nested.containerThreshold = 0
        var committed: [String] = []
        for snapshot in Snapshots.random(text, seed: 1, maxStep: 5) { committed += nested.update(snapshot).committed }
        #expect(committed + nested.finish(text) == reference.lines(text))
        #expect(render("Defined.[^1]\n\n[^1]: Yes.", width: 60, dumb: true) == "Defined.¹\n\n¹ Yes.\n")
        #expect(
            render("One[^x].", width: 60, dumb: true) == "One[x].\n\nFootnote `[^x]` is not defined in this reply.\n")
    }

    @Test(arguments: [40, 80])
    func streamedFootnotesEndOnTheScreenOfTheWholeRender(width: Int) {
        let capabilities = TerminalCapabilities(width: width, height: 1000)
        let expected = screenLines(
            MarkdownRenderer(capabilities: capabilities, mode: .always).render(Self.document), width: width)
        for seed in UInt64(0)..<20 {
            let output = streamedOutput(
                Snapshots.random(Self.document, seed: seed), final: Self.document, capabilities: capabilities)
            #expect(screenLines(output, width: width) == expected, "seed \(seed)")
        }
    }
}
