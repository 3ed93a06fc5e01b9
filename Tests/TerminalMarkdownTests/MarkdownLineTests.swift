import Testing

@testable import Markdown
@testable import TerminalMarkdown

/// `MarkdownLine` reads each line as cmark-gfm does: every expectation below is checked against the block
/// structure `MarkdownParser` (cmark-gfm) gives the same text, so a rule the two read differently fails here.
struct MarkdownLineTests {
    private static func parse(_ text: String) -> [SourceBlock] { MarkdownParser.parse(UntrustedText.sanitize(text)) }

    private static func lines(_ text: String) -> [Substring] {
        text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { Substring($0) }
    }

    // MARK: Lines that open a block

    static let openingLines: [String] = [
        "- a", "+ a", "* a", "1. a", "1) a", "7. a", "123456789. a", "1234567890. a", "-a", "1.a", "-", "1.", "-   ",
        "   - a", "    - a", "\t- a", " \t- a", "- - -", "* * *", "-\tx", "2.\tx", "-\t\tx", "1.     x", "-    x",
        "> a", ">a", "   > a", "    > a", ">\ta", "> > a",
        "```", "~~~", "``", "````js x", "~~~ a`b", "```a`b", "   ```", "    ```", "\t```",
        "# a", "###### a", "####### a", "#a", "#", "   # a", "    # a", "#\ta",
        "***", "---", "___", " - - -", "_ _ _ _", "--", "*-*", "-\t-\t-", "    ***", "a", ""
    ]

    /// The blocks a line can open, as `MarkdownLine` reads them.
    private enum Opening { case list, quote, fence, rule, heading }

    private static func opening(of line: MarkdownLine) -> Opening? {
        if line.isThematicBreak { return .rule }
        if line.listMarker != nil { return .list }
        if line.quoteContent != nil { return .quote }
        if line.fence != nil { return .fence }
        return line.isATXHeading ? .heading : nil
    }

    /// The block cmark-gfm starts with `block`'s first line; nil for a setext heading, which its second line makes.
    private static func opening(of block: SourceBlock) -> Opening? {
        switch block.block {
        case .list: .list
        case .blockQuote: .quote
        case .codeBlock: .fence
        case .thematicBreak: .rule
        case .heading: block.endLine == block.startLine ? .heading : nil
        default: nil
        }
    }

    /// A line that opens a text is read as the block cmark-gfm starts there, and as no block where it starts none.
    @Test(arguments: openingLines) func aFirstLineOpensTheBlockCmarkStarts(_ line: String) {
        let first = Self.parse(line).first.flatMap { $0.startLine == 1 ? Self.opening(of: $0) : nil }
        #expect(Self.opening(of: MarkdownLine(Substring(line))) == first)
    }

    /// Every top-level block of every spec example that opens with a marker starts on a line read as that marker,
    /// and every example's first line opens exactly the block cmark-gfm starts there.
    @Test func everySpecBlockStartsOnALineReadAsItsMarker() {
        for example in SpecExamples.all {
            let text = UntrustedText.sanitize(example.markdown)
            let lines = Self.lines(text)
            let blocks = MarkdownParser.parse(text)
            for block in blocks where block.startLine > 0 && block.startLine <= lines.count {
                guard let opening = Self.opening(of: block) else { continue }
                #expect(
                    Self.opening(of: MarkdownLine(lines[block.startLine - 1])) == opening,
                    "\(example.title), line \(block.startLine)")
            }
            let first = blocks.first.flatMap { $0.startLine == 1 ? Self.opening(of: $0) : nil }
            #expect(Self.opening(of: MarkdownLine(lines[0])) == first, "\(example.title), line 1")
        }
    }

    // MARK: List items

    static let listItemLines: [String] = [
        "- a", "* a", "+ a", "1. a", "3) a", "10. a", "123456789. a", " - a", "   1. a", "-\ta", " -\ta", "1.\ta",
        "-  \ta",
        "-\t\ta", "-    a", "-     a", "1.     a", "-", "1.", "- ", "-\t", "- [ ] task", "- [x] done"
    ]

    /// The column an item's content starts at is the one its later lines must reach: indented that far a line
    /// belongs to the item, one column less it does not.
    @Test(arguments: listItemLines) func aListItemsLaterLinesBelongToItFromItsContentColumn(_ line: String) throws {
        let marker = try #require(MarkdownLine(Substring(line)).listMarker)
        // After a blank line (or straight after an empty item, which a blank line would end) nothing is lazy.
        let gap = marker.isEmpty ? "\n" : "\n\n"
        let inside = Self.parse(line + gap + String(repeating: " ", count: marker.contentIndent) + "z")
        let outside = Self.parse(line + gap + String(repeating: " ", count: marker.contentIndent - 1) + "z")
        guard case .list(let list)? = inside.first?.block else {
            Issue.record("cmark-gfm reads no list")
            return
        }
        #expect(inside.count == 1 && list.items.count == 1 && list.items[0].endLine == 3 - (marker.isEmpty ? 1 : 0))
        #expect(outside.count == 2)
        #expect((list.start == nil) == [0x2D, 0x2B, 0x2A].contains(marker.marker))
        #expect(marker.isEmpty == (list.items[0].blocks.count == 1))
    }

    // MARK: Container content

    /// Texts that are one block quote or one list item, with tabs where CommonMark's tab stops matter.
    static let containers: [String] = [
        "> foo\n> bar", ">\tfoo", ">\t\tcode", "> \tcode", ">  \tcode", ">\t\t- a", " >  > nested\n > > more",
        "> - a\n>   b", ">```\n>\tx\n>```", ">>> deep", "   > three", ">     code\n>\n>     more",
        "- foo\n\n  bar", "-\tfoo\n\n\tbar", "-\t\tfoo", "1.  a\n\n    b", "10) x\n    y", "7. seven\n   more",
        "-    x\n\n     y", "-     x", " -  a\n\n    b", "-\n  foo", "* a\n\n      code", "- a\n  > b\n  > c",
        "1. ```\n   x\n\t y\n   ```", "- [ ] task\n  more", "- [x] done", "2)\t\tcode\n\n   \tmore", "-  a\n\t b"
    ]

    /// The content `MarkdownLine` takes out of a container's lines parses to the blocks cmark-gfm puts inside the
    /// container: the columns a marker, its space and a partly consumed tab take are counted the same.
    @Test(arguments: containers) func aContainersContentParsesToItsChildren(_ text: String) throws {
        let blocks = Self.parse(text)
        try #require(blocks.count == 1)
        let lines = Self.lines(text)
        var content = ""
        switch blocks[0].block {
        case .blockQuote(let children):
            for line in lines {
                let source = MarkdownLine(line)
                let start = try #require(source.quoteContent)
                source.appendContent(from: start, to: &content)
                content += "\n"
            }
            #expect(Self.parse(content).map(\.block) == children)
        case .list(let list):
            let item = try #require(list.items.first)
            let marker = try #require(MarkdownLine(lines[0]).listMarker)
            for (index, line) in lines.enumerated() {
                let source = MarkdownLine(line)
                if index > 0 && source.isBlank {
                    content += "\n"
                    continue
                }
                #expect(index == 0 || source.indentation >= marker.contentIndent)
                var start = source.position(atColumn: marker.contentIndent)
                if index == 0 && item.task != nil { start = try #require(source.afterTaskBox(at: start)) }
                source.appendContent(from: start, to: &content)
                content += "\n"
            }
            #expect(Self.parse(content).map(\.block) == item.blocks)
        default:
            Issue.record("not a container: \(blocks[0].block)")
        }
    }

    // MARK: Lazy continuation

    /// A container's first line and a line without its marker, and whether cmark-gfm keeps that line in the
    /// container's paragraph.
    static let lazyLines: [(String, Bool)] = [
        ("> a\nb", true), ("> a\n    b", true), ("> a\n\t> b", true), ("> a\n===", true), ("> a\n|-|", true),
        ("> a\n#b", true), ("> a\n```x`y", true), ("> a\n--", true), ("> a\n1.b", true), ("> a\n- b", false),
        ("> a\n-", false), ("> a\n2. b", false), ("> a\n1) b", false), ("> a\n***", false), ("> a\n---", false),
        ("> a\n# h", false), ("> a\n```", false), ("> a\n~~~ x", false), ("> a\n ", false), ("- a\nb", true),
        ("- a\n    b", true), ("- a\n* b", false), ("- a\n2) b", false), ("- a\n> b", false), ("1. a\n- b", false),
        ("1. a\nb", true), ("> - a\nb", true), ("> - a\n- b", false)
    ]

    @Test(arguments: lazyLines) func aLineWithoutTheMarkerContinuesLazilyWhenCmarkKeepsIt(_ text: String, _ lazy: Bool)
        throws
    {
        let blocks = Self.parse(text)
        let first = try #require(blocks.first)
        #expect((first.endLine == 2) == lazy, "cmark-gfm reads \(blocks)")
        #expect(MarkdownLine(Self.lines(text)[1]).canContinueLazily == lazy)
    }

    // MARK: Fences

    static let fences: [String] = [
        "```\ncode\n```", "~~~~ info\n~~~\ncode\n~~~~", "  ```\n  x\n   y\n z\n```", " ```\n\tx\n ```",
        "   ~~~\n\t\tx\n  \ty\n~~~", "````\n```\n````", "```\n```` \n", "~~~\n```\n~~~", "```\nx\n   ```  ",
        "```\nx\n    ```\n```", "```\nunclosed", "``` js\n\tx\n```", "```\n\t```\n```"
    ]

    /// A fence opens where cmark-gfm's code block starts, closes on the line where it ends, and its code lines
    /// lose the fence's indentation as cmark-gfm's literal does.
    @Test(arguments: fences) func aFenceOpensClosesAndIndentsItsCodeAsCmarkDoes(_ text: String) throws {
        let blocks = Self.parse(text)
        guard case .codeBlock(_, let literal)? = blocks.first?.block else {
            Issue.record("cmark-gfm reads no fence: \(blocks)")
            return
        }
        let lines = Self.lines(text)
        let fence = try #require(MarkdownLine(lines[0]).fence)
        var code = ""
        var closing: Int?
        for (index, line) in lines.enumerated().dropFirst() {
            let source = MarkdownLine(line)
            if source.closes(fence) {
                closing = index + 1
                break
            }
            source.appendText(from: source.position(atColumn: min(fence.indent, source.indentation)), to: &code)
            code += "\n"
        }
        #expect(closing ?? lines.count == blocks[0].endLine)
        #expect(code == literal)
    }

    /// A fence needs three of its character, at most three columns in, and a backtick fence no backtick after it.
    @Test func aFenceNeedsThreeMarksAtMostThreeColumnsIn() {
        #expect(MarkdownLine("````js x").fence == MarkdownLine.Fence(character: 0x60, length: 4, indent: 0))
        #expect(MarkdownLine("   ~~~ a`b").fence == MarkdownLine.Fence(character: 0x7E, length: 3, indent: 3))
        #expect(MarkdownLine("```a`b").fence == nil)
        #expect(MarkdownLine("\t```").fence == nil)
        #expect(MarkdownLine("``").fence == nil)
    }
}

/// The texts above, streamed: the stream decides with `MarkdownLine` where containers and fences go on, so each
/// text must stream to its whole render, also with every container streamed child by child.
struct MarkdownLineStreamingTests {
    static let texts: [String] =
        MarkdownLineTests.containers + MarkdownLineTests.fences
        + MarkdownLineTests.lazyLines.map(\.0) + MarkdownLineTests.listItemLines.map { $0 + "\n\n  z\n" } + [
            "> a\n> b\n2. c\n3. d", "- a\n- - -\n- b", "* a\n* * *", "1. a\n   b\n\n2) c", "- a\n\n\t- b\n\n\t\tc",
            "> quote\n> ```\n>     code\n> ```\nlazy?", "1.     code\n  not code\n\n  after",
            "10.   a\nlazy\n\n      b\nlazy",
            "1234567. x\n\n          y\nlazy", "- [ ] task\n\tmore\n- [x] done"
        ]

    @Test(arguments: texts) func aTextStreamsToItsWholeRender(_ text: String) {
        for width in [40, 80] {
            let capabilities = TerminalCapabilities(width: width, height: 1000, hyperlinks: true)
            let reference = MarkdownRenderer(capabilities: capabilities, mode: .always)
            let expected = screenLines(reference.render(text), width: width)
            for snapshots in [Snapshots.scalarByScalar(text), [text]] {
                #expect(
                    screenLines(streamedOutput(snapshots, final: text, capabilities: capabilities), width: width)
                        == expected)
                var stream = MarkdownStream(renderer: reference.blockRenderer, rendersMarkdown: true)
                stream.containerThreshold = 0
                var committed: [String] = []
                for snapshot in snapshots { committed += stream.update(snapshot).committed }
                committed += stream.finish(text)
                #expect(committed == reference.lines(text), "width \(width), nested streams")
            }
        }
    }
}
