import Markdown
import Testing

/// `MarkdownParser` leaves cmark-gfm's autolink extension out of a text without `www.` or `@`, and parses it again
/// with the extension when a text node turns out to hold `://`: every URL that reads as a link still becomes one, and
/// a URL in a link's destination stays that link's only.
struct AutolinkParseTests {
    @Test(arguments: [
        ("See https://swift.org now.", ["https://swift.org"]),
        ("A [link](https://example.com/) and https://swift.org.", ["https://example.com/", "https://swift.org"]),
        ("A [link](https://example.com/) and www.swift.org.", ["https://example.com/", "http://www.swift.org"]),
        ("A [link](https://example.com/), mail me@example.org.", ["https://example.com/", "mailto:me@example.org"]),
        ("A stray ](https://swift.org) bracket.", ["https://swift.org"]),
        (
            "*https://swift.org* in emphasis, [a](https://example.com/) after.",
            ["https://swift.org", "https://example.com/"]
        ),
        ("A [link](https://example.com/) and `https://swift.org` in code.", ["https://example.com/"]),
        ("| site |\n|---|\n| https://swift.org |\n", ["https://swift.org"]),
        ("Only [a link](https://example.com/) here.", ["https://example.com/"])
    ])
    func urlsThatReadAsLinksBecomeLinks(text: String, urls: [String]) {
        #expect(MarkdownParser.parse(text).flatMap { Self.links(in: $0.block) } == urls)
    }

    /// The destinations of the links in `block`, in reading order.
    private static func links(in block: MarkdownBlock) -> [String] {
        switch block {
        case .paragraph(let inlines), .heading(_, let inlines): links(in: inlines)
        case .blockQuote(let blocks): blocks.flatMap { links(in: $0) }
        case .list(let list): list.items.flatMap { $0.blocks.flatMap { links(in: $0) } }
        case .table(let table): (table.header + table.rows.joined()).flatMap { links(in: $0) }
        case .codeBlock, .indentedCode, .html, .thematicBreak: []
        }
    }

    private static func links(in inlines: [MarkdownInline]) -> [String] {
        inlines.flatMap { inline -> [String] in
            switch inline {
            case .link(let url, let children): [url] + links(in: children)
            case .emphasis(let children), .strong(let children), .strikethrough(let children),
                .image(_, let children):
                links(in: children)
            case .text, .code, .html, .softBreak, .lineBreak, .footnoteReference: []
            }
        }
    }
}
