import Markdown
import TestSupport
import Testing

@testable import TerminalMarkdown

struct StreamingTests {
    static let documents = Corpus.documents + StreamingCorpus.documents
    static let cases: [(String, Int)] = documents.flatMap { document in [80, 40].map { (document.name, $0) } }

    private func document(_ name: String) -> String { Self.documents.first { $0.name == name }!.text }

    @Test(arguments: cases)
    func randomChunkingsEndOnTheScreenOfTheWholeRender(name: String, width: Int) {
        let text = document(name)
        let capabilities = TerminalCapabilities(width: width, height: 1000, hyperlinks: true)
        let expected = screenLines(
            MarkdownRenderer(capabilities: capabilities, mode: .always).render(text), width: width)
        for seed in UInt64(0)..<40 {
            let output = streamedOutput(Snapshots.random(text, seed: seed), final: text, capabilities: capabilities)
            let actual = screenLines(output, width: width)
            #expect(actual == expected, "seed \(seed)")
            if actual != expected { return }
        }
    }

    @Test(arguments: cases)
    func scalarByScalarStreamingEndsOnTheScreenOfTheWholeRender(name: String, width: Int) {
        let text = document(name)
        let capabilities = TerminalCapabilities(width: width, height: 1000, hyperlinks: true)
        let expected = screenLines(
            MarkdownRenderer(capabilities: capabilities, mode: .always).render(text), width: width)
        let output = streamedOutput(Snapshots.scalarByScalar(text), final: text, capabilities: capabilities)
        #expect(screenLines(output, width: width) == expected)
    }
}

struct StreamedContainerTests {
    /// One width per document (alternating 80 and 40) and two random chunkings, a fine and a coarse one: enough
    /// snapshots to commit inside each container many times while the run stays short.
    @Test(arguments: StreamingCorpus.longContainers.map(\.name))
    func longContainersStreamToTheScreenOfTheWholeRender(name: String) {
        let index = StreamingCorpus.longContainers.firstIndex { $0.name == name }!
        let text = StreamingCorpus.longContainers[index].text
        let width = index % 2 == 0 ? 80 : 40
        let capabilities = TerminalCapabilities(width: width, height: 1000, hyperlinks: true)
        let expected = screenLines(
            MarkdownRenderer(capabilities: capabilities, mode: .always).render(text), width: width)
        for (seed, maxStep) in [(UInt64(0), 400), (1, 3000)] {
            let snapshots = Snapshots.random(text, seed: seed, maxStep: maxStep)
            let actual = screenLines(streamedOutput(snapshots, final: text, capabilities: capabilities), width: width)
            #expect(actual == expected, "chunks of up to \(maxStep) scalars")
            if actual != expected {
                let first =
                    zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                    ?? min(actual.count, expected.count)
                Issue.record(
                    "first difference at row \(first): \(actual.dropFirst(first).prefix(3)) vs \(expected.dropFirst(first).prefix(3))"
                )
                return
            }
        }
    }
}

struct LongParagraphTests {
    /// A paragraph too long to hold back streams line by line; each line still shows its emphasis rendered, the
    /// whole render shows the same lines, and the block after it keeps its blank line.
    @Test(arguments: [false, true])
    func aParagraphTooLongToHoldBackShowsItsLinesRendered(quoted: Bool) {
        let body = StreamingCorpus.longParagraph.split(separator: "\n").map { (quoted ? "> " : "") + $0 }.joined(
            separator: "\n")
        let text = "Before.\n\n" + body + "\n\nAfter it."
        let capabilities = TerminalCapabilities(noColor: true, width: 80, height: 1000)
        let whole = screenLines(MarkdownRenderer(capabilities: capabilities, mode: .always).render(text), width: 80)
        let streamed = screenLines(
            streamedOutput(
                Snapshots.random(text, seed: 7, maxStep: 2000), final: text,
                capabilities: capabilities), width: 80)
        #expect(streamed == whole)
        #expect(!streamed.contains { $0.contains("*lazy*") })
        #expect(streamed.filter { $0.contains("the quick brown fox lazy dog") }.count == 1800)
        #expect(streamed.suffix(2) == ["", "After it."])
        #expect(streamed.prefix(3) == ["Before.", "", (quoted ? "│ " : "") + "line 0: the quick brown fox lazy dog"])
    }
}

struct StreamedReferenceTests {
    private let capabilities = TerminalCapabilities(noColor: true, width: 60)

    private func lineByLine(_ text: String) -> [String] {
        var snapshots: [String] = []
        var end = text.startIndex
        while let newline = text[end...].firstIndex(of: "\n") {
            end = text.index(after: newline)
            snapshots.append(String(text[..<end]))
        }
        return snapshots
    }

    @Test func definitionsAfterTheirUseAreListedWithTheirURLsAtTheEnd() {
        let text =
            "Rust is memory-safe [1]. Go has a GC [2].\n\nBoth compile to native code.\n\n"
            + "[1]: https://doc.rust-lang.org/book/\n[2]: https://go.dev/doc/gc-guide\n"
        let streamed = screenLines(streamedOutput(lineByLine(text), final: text, capabilities: capabilities), width: 60)
        #expect(
            streamed == [
                "Rust is memory-safe [1]. Go has a GC [2].", "", "Both compile to native code.", "",
                "[1]: https://doc.rust-lang.org/book/", "[2]: https://go.dev/doc/gc-guide"
            ])
        #expect(streamed == screenLines(MarkdownRenderer(capabilities: capabilities).render(text), width: 60))
    }

    /// A reply whose output starts at the top-left corner of a tmux pane (`clear; llmster ask …`): the redraws of its
    /// live rows leave nothing in the scrollback, which holds the reply once, as the whole render shows it.
    @Test func redrawsAtTheTopOfTheScreenLeaveTmuxScrollbackAlone() {
        let text = (1...12).map { "Paragraph \($0) of a reply that streams in line by line.\n\n" }.joined()
        let capabilities = TerminalCapabilities(noColor: true, width: 60, height: 6)
        let output = streamedOutput(lineByLine(text), final: text, capabilities: capabilities)
        var screen = TerminalScreen(width: 60, height: 6, widthOf: DisplayWidth.of)
        screen.scrollsOnClear = true
        screen.apply(output)
        #expect(screen.lines == screenLines(MarkdownRenderer(capabilities: capabilities).render(text), width: 60))
    }

    @Test func committedDefinitionsResolveLaterReferences() {
        let text = "[x]: https://x.example\n\nA [a][x]\n\nB [b][x]\n\nC [x]\n"
        let streamed = screenLines(streamedOutput(lineByLine(text), final: text, capabilities: capabilities), width: 60)
        #expect(streamed == ["A a (https://x.example)", "", "B b (https://x.example)", "", "C x (https://x.example)"])
    }
}

struct LinkReferenceBoundTests {
    /// 12,000 labels used before any is defined, then their 12,000 definitions: the stream and the whole render
    /// finish (each block is parsed a bounded number of times) and agree, both listing the URLs of the first
    /// `maximumLabels` labels after the last block and leaving the rest as written.
    @Test func thousandsOfLabelsUsedBeforeTheirDefinitionsStreamAsTheWholeRenders() {
        let count = 12_000
        let uses = stride(from: 0, to: count, by: 100).map { start in
            (start..<(start + 100)).map { "[r\($0)]" }.joined(separator: " ")
        }
        let definitions = (0..<count).map { "[r\($0)]: https://e.example/\($0)" }
        let text = uses.joined(separator: "\n\n") + "\n\n" + definitions.joined(separator: "\n") + "\n"
        let capabilities = TerminalCapabilities(noColor: true, width: 100)
        let whole = screenLines(MarkdownRenderer(capabilities: capabilities).render(text), width: 100, height: 100_000)
        let streamed = screenLines(
            streamedOutput(
                Snapshots.random(text, seed: 3, maxStep: 8192), final: text,
                capabilities: capabilities), width: 100, height: 100_000)
        #expect(streamed == whole)
        let listed = streamed.filter { $0.hasPrefix("[r") && $0.contains("]: https://e.example/") }
        #expect(listed.count == LinkReferences.maximumLabels)
        #expect(listed.first == "[r0]: https://e.example/0")
        #expect(listed.last == "[r9999]: https://e.example/9999")
        #expect(streamed.first?.hasPrefix("[r0] [r1] [r2]") == true)
    }

    /// A definition past the bounds (the 10,001st label, one longer than 16 KiB, or one past 1 MiB of definitions)
    /// is not kept for later blocks: a use of it arriving after it has been printed stays as written in the stream,
    /// while the whole render, one parse, links it. A use of a kept label links in both.
    @Test(arguments: ["count", "length", "bytes"])
    func aDefinitionPastTheBoundsIsNotKeptForLaterBlocks(bound: String) {
        let bounded = LinkReferences.maximumLabels
        func titled(_ label: String, _ titleBytes: Int) -> String {
            "[\(label)]: https://e.example/\(label.dropFirst()) \"" + String(repeating: "t", count: titleBytes) + "\""
        }
        let definitions: [String]
        switch bound {
        case "count": definitions = (0...bounded).map { "[d\($0)]: https://e.example/\($0)" }
        case "length":
            definitions = ["[d0]: https://e.example/0", titled("d\(bounded)", LinkReferences.maximumDefinitionBytes)]
        default:
            // Definitions of 12 KiB up to 1 MiB; the one that no longer fits is the one used.
            let fill = (0..<(LinkReferences.maximumRecordedBytes / (12 << 10))).map { titled("f\($0)", 12 << 10) }
            definitions = ["[d0]: https://e.example/0"] + fill + [titled("d\(bounded)", 12 << 10)]
        }
        // Paragraphs between, longer than a snapshot step, so the use arrives in a parse of its own.
        let filler = Array(repeating: "Filler text between the definitions and their use.", count: 400)
        let text =
            definitions.joined(separator: "\n") + "\n\n" + filler.joined(separator: "\n\n")
            + "\n\nKept [d0] and bounded [d\(bounded)].\n"
        let capabilities = TerminalCapabilities(noColor: true, width: 200)
        let last = "/\(bounded))"
        let whole = MarkdownRenderer(capabilities: capabilities).render(text)
        let streamed = streamedOutput(
            Snapshots.random(text, seed: 5, maxStep: 4096), final: text, capabilities: capabilities)
        let wholeUse = whole.split(separator: "\n").first { $0.hasPrefix("Kept ") }.map(String.init) ?? ""
        let streamedUse = streamed.split(separator: "\n").first { $0.hasPrefix("Kept ") }.map(String.init) ?? ""
        #expect(wholeUse.contains("e.example/0)") && wholeUse.contains(last), "\(wholeUse)")
        #expect(streamedUse.contains("e.example/0)") && !streamedUse.contains(last), "\(streamedUse)")
        #expect(streamedUse.contains("bounded [d\(bounded)]"), "\(streamedUse)")
    }
}

/// A reply that so far holds only definitions, which print nothing.
struct DefinitionsOnlyStreamingTests {
    /// 3,000 definitions (110 KB) streamed in steps of up to 4 KiB: the stream keeps only the definition that may
    /// still go on and what arrived after it, not every definition so far (each update parsed them all again), and a
    /// paragraph after them links its references as the whole render does.
    @Test func definitionsAreDroppedAsTheyCompleteAndStillResolve() {
        let text =
            (0..<3_000).map { "[d\($0)]: https://e.example/\($0)" }.joined(separator: "\n")
            + "\n\nFirst [d0] and last [d2999].\n"
        let reference = MarkdownRenderer(capabilities: TerminalCapabilities(width: 100, height: 1000), mode: .always)
        var stream = MarkdownStream(renderer: reference.blockRenderer, rendersMarkdown: true)
        var committed: [String] = []
        var mostHeld = 0
        for snapshot in Snapshots.random(text, seed: 11, maxStep: 4096) {
            committed += stream.update(snapshot).committed
            mostHeld = max(mostHeld, snapshot.utf8.count - stream.committedBytes)
        }
        committed += stream.finish(text)
        #expect(mostHeld < 8192, "held \(mostHeld) bytes uncommitted")
        #expect(committed == reference.lines(text))
        #expect(committed.contains { $0.contains("e.example/2999") })
    }
}

/// The reference definitions a parse is given in front of its text.
struct ReferencePrefixTests {
    /// What the definitions parse into besides definitions (here a stray paragraph) is dropped, also when the
    /// text's first line number is the one right after the prefix, where no line numbers need shifting.
    @Test func blocksOfThePrefixAreDroppedWhateverTheFirstLine() {
        let references = "[y]: https://e.example/y\nstray"
        for firstLine in [1, 4, 9] {
            let blocks = MarkdownParser.parse("[y]", references: references, firstLine: firstLine)
            #expect(blocks.count == 1, "first line \(firstLine): \(blocks)")
            #expect(blocks.first?.startLine == firstLine)
            #expect(blocks.first?.block == .paragraph([.link(url: "https://e.example/y", [.text("y")])]))
        }
    }
}

struct NestedContainerStreamingTests {
    /// Generated replies with every block quote and list item streamed through a nested stream (container limit
    /// 0), compared by their committed lines with the whole render.
    @Test(arguments: UInt64(0)..<100)
    func generatedRepliesCommitTheWholeRenderThroughNestedStreams(seed: UInt64) {
        let text = GeneratedReplyTests.reply(seed: seed)
        let width = seed % 2 == 0 ? 80 : 40
        let reference = MarkdownRenderer(
            capabilities: TerminalCapabilities(width: width, height: 1000, hyperlinks: true),
            mode: .always)
        var stream = MarkdownStream(renderer: reference.blockRenderer, rendersMarkdown: true)
        stream.containerThreshold = 0
        var committed: [String] = []
        for snapshot in Snapshots.random(text, seed: seed, maxStep: 24) {
            committed += stream.update(snapshot).committed
        }
        committed += stream.finish(text)
        #expect(committed == reference.lines(text), "width \(width)\n\(text)")
    }
}
