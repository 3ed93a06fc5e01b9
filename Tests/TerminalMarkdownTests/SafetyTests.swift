import TestSupport
import Testing

@testable import Markdown
@testable import TerminalMarkdown

struct SafetyTests {
    static let hostile: [(String, String)] = [
        ("osc52", "copy \u{1B}]52;c;SGVsbG8=\u{07} this"),
        ("clear", "before\u{1B}[2Jafter"),
        ("title", "\u{1B}]0;pwned\u{1B}\\ title"),
        ("c1csi", "eight-bit \u{9B}31m red"),
        ("c1osc", "\u{9D}0;title\u{9C}"),
        ("dcs", "\u{1B}P1$r\u{1B}\\ dcs"),
        ("apc", "\u{1B}_kitty\u{1B}\\ apc"),
        ("bidi", "file\u{202E}gpj.exe and \u{2066}isolate\u{2069}"),
        ("bell", "ring\u{07}ring"),
        ("overprint", "safe\rEVIL"),
        ("inCode", "`\u{1B}[31m` and\n```\n\u{1B}]52;c;AAAA\u{07}\n```\n"),
        ("inLink", "[x\u{1B}[2J](https://example.com/\u{1B}]0;t\u{07}) and [y](javascript:\u{1B}[2J)"),
        ("inTable", "| a\u{1B}[5m | b |\n|---|---|\n| \u{9B}2J | \u{1B}]8;;http://evil\u{1B}\\ |\n"),
        ("html", "<b>\u{1B}[1m</b>\n\n<div>\u{1B}]2;x\u{07}</div>\n"),
        // Character references that cmark decodes into controls: in text, link text and URL, image, info string.
        (
            "references",
            "clear &#27;[2J, &#x9B;31m red, &#x202E;gpj, &#7;ring, &#13;EVIL\n\n"
                + "[x&#27;[2J](https://example.com/&#27;]0;t&#7;) ![a&#x1b;[5m](https://e.com/&#x9D;0)\n\n"
                + "```py&#27;[31m\ncode\n```\n\n| &#27;[5m | b |\n|---|---|\n| &#x9b;2J | c |\n"
        ),
        // A reference whose definition comes later: a stream parses the definition as a prefix of later blocks.
        (
            "definedReference",
            "[text][r] and more\n\nmore text\n\n[r]: https://e.com/&#27;]0;t&#7; \"&#27;[2J\"\n\n[again][r]\n"
        )
    ]

    /// Fails when `output` holds an escape sequence other than the renderer's own (CR IND ending a line included),
    /// or a live control character.
    private func expectOnlyRendererSequences(_ output: String, _ name: String) {
        let scalars = Array(output.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let value = scalars[index].value
            // The line end of committed lines on a terminal that redraws: CR, then IND.
            if value == 0x1B, index > 0, scalars[index - 1] == "\r", index + 1 < scalars.count,
                scalars[index + 1] == "D"
            {
                index += 2
                continue
            }
            if value == 0x1B {
                let rest = String(String.UnicodeScalarView(scalars[index...].prefix(2100)))
                guard let length = rendererSequenceLength(rest) else {
                    Issue.record("\(name): foreign escape sequence at \(rest.prefix(20).debugDescription)")
                    return
                }
                index += length
                continue
            }
            let isControl =
                (value < 0x20 && value != 0x0A && value != 0x0D && value != 0x09) || (0x7F...0x9F).contains(value)
            let isBidi = (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
            #expect(!isControl && !isBidi, "\(name): live control U+\(String(value, radix: 16))")
            index += 1
        }
    }

    /// The length in scalars of the renderer sequence at the start of `text`: SGR, autowrap, synchronized output,
    /// cursor up and down, erase below and to the end of the row, or an OSC 8 hyperlink to an http(s)/mailto URL of printable ASCII.
    private func rendererSequenceLength(_ text: String) -> Int? {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count >= 2 else { return nil }
        if scalars[1] == "[" {
            var index = 2
            while index < scalars.count, "0123456789;?".unicodeScalars.contains(scalars[index]) { index += 1 }
            guard index < scalars.count else { return nil }
            let parameters = String(String.UnicodeScalarView(scalars[2..<index]))
            switch scalars[index] {
            case "m" where !parameters.contains("?"): return index + 1
            case "h", "l": return ["?7", "?2026"].contains(parameters) ? index + 1 : nil
            case "A" where !parameters.contains("?"): return index + 1
            case "B" where parameters.isEmpty, "J" where parameters.isEmpty, "K" where parameters.isEmpty:
                return index + 1
            default: return nil
            }
        }
        let prefix = "\u{1B}]8;;"
        guard text.hasPrefix(prefix) else { return nil }
        let body = scalars.dropFirst(prefix.unicodeScalars.count)
        guard let end = body.firstIndex(of: "\u{1B}"), end + 1 < scalars.count, scalars[end + 1] == "\\" else {
            return nil
        }
        let url = String(String.UnicodeScalarView(scalars[prefix.unicodeScalars.count..<end]))
        guard url.isEmpty || LinkPolicy.isLinkable(url) else { return nil }
        return end + 2
    }

    /// The parser sanitises what it takes from the tree when the text it was given was not sanitised: a caller that
    /// forgets to still puts no control character into a block.
    @Test func theParserSanitisesAnUnsanitisedText() {
        let blocks = MarkdownParser.parse("a \u{1B}[2J b `\u{9B}c` [l\u{7}](https://e.com/\u{1B}x)\n")
        guard case .paragraph(let inlines)? = blocks.first?.block else {
            Issue.record("no paragraph: \(blocks)")
            return
        }
        var texts: [String] = []
        for inline in inlines {
            switch inline {
            case .text(let text), .code(let text): texts.append(text)
            case .link(let url, let children):
                texts.append(url)
                for case .text(let text) in children { texts.append(text) }
            default: break
            }
        }
        #expect(texts.joined().contains("2J"))
        #expect(!texts.joined().unicodeScalars.contains(where: UntrustedText.needsReplacement))
    }

    @Test(arguments: hostile)
    func hostileTextRendersInert(name: String, text: String) {
        for variant in Variant.allCases {
            let capabilities = variant.capabilities(width: 40)
            expectOnlyRendererSequences(MarkdownRenderer(capabilities: capabilities, mode: .always).render(text), name)
            expectOnlyRendererSequences(MarkdownRenderer(capabilities: capabilities, mode: .never).render(text), name)
            expectOnlyRendererSequences(
                streamedOutput(Snapshots.scalarByScalar(text), final: text, capabilities: capabilities), name)
        }
    }

    /// Blocks deep in quotes of a window narrower than their bars leave no columns: a rule or a table laid out as
    /// records used to stop llmster ("Negative count not allowed"); every block still renders, whole and streamed.
    @Test(arguments: [1, 2, 3])
    func blocksWithNoColumnsLeftStillRender(width: Int) {
        let text = "> > ---\n>\n> > | name | value |\n> > |---|---|\n> > | a | 1 |\n\n- > ---\n"
        let capabilities = TerminalCapabilities(width: width)
        let whole = MarkdownRenderer(capabilities: capabilities, mode: .always).render(text)
        #expect(whole.contains("a"), "\(whole)")
        let streamed = streamedOutput([String(text.prefix(20))], final: text, capabilities: capabilities)
        #expect(streamed.contains("a"), "\(streamed)")
    }

    @Test func escapeSequencesBecomeVisibleText() {
        #expect(UntrustedText.sanitize("a\u{1B}[2Jb") == "a␛[2Jb")
        #expect(UntrustedText.sanitize("\u{9B}31m") == "␛[31m")
        #expect(UntrustedText.sanitize("x\u{07}\u{7F}\u{0}") == "x␇␡␀")
        #expect(UntrustedText.sanitize("line\r\nnext\ttab") == "line\nnext\ttab")
        #expect(UntrustedText.sanitize("\u{202E}abc") == "\u{FFFD}abc")
        #expect(UntrustedText.sanitize("name: \u{2067}שלום\u{2069} ok") == "name: שלום ok")
        #expect(UntrustedText.sanitize("plain ✓") == "plain ✓")
    }

    @Test(arguments: [
        ("https://example.com/a", true), ("http://x.y", true), ("mailto:a@b.c", true), ("HTTPS://EXAMPLE.COM", true),
        ("javascript:alert(1)", false), ("file:///etc/passwd", false), ("https://exa mple.com", false),
        ("https://example.com/\u{1B}", false), ("https://例え.jp", false),
        ("https://x/" + String(repeating: "a", count: 3000), false)
    ])
    func onlyWebAndMailURLsBecomeHyperlinks(url: String, linkable: Bool) {
        #expect(LinkPolicy.isLinkable(url) == linkable)
        guard !url.contains(" ") else { return }
        let output = MarkdownRenderer(capabilities: TerminalCapabilities(hyperlinks: true), mode: .always).render(
            "[go](\(url))")
        #expect(output.contains("\u{1B}]8;;") == linkable)
    }

    @Test func linkShowsTheHostWhenItsTextDiffersFromTheURL() {
        let capabilities = TerminalCapabilities(width: 80, hyperlinks: true)
        let lines = screenLines(
            MarkdownRenderer(capabilities: capabilities, mode: .always).render(
                "[docs](https://user@docs.example.com:8080/path?q) and https://plain.example"), width: 80)
        #expect(lines == ["docs (docs.example.com:8080) and https://plain.example"])
    }

    @Test(arguments: [
        ("[https://a.example/x](https://a.example/x)", "https://a.example/x"),
        ("[a.example/x](https://a.example/x)", "a.example/x"),
        ("[a.example](http://a.example)", "a.example"),
        ("[me@a.example](mailto:me@a.example)", "me@a.example"),
        ("[**a.example**/x](https://a.example/x)", "a.example/x"),
        ("[a.example/y](https://a.example/x)", "a.example/y (https://a.example/x)"),
        ("[ftp.example](ftp://ftp.example)", "ftp.example (ftp://ftp.example)")
    ])
    func aLinkWhoseTextIsItsURLShowsNoDetail(markdown: String, shown: String) {
        let lines = screenLines(
            MarkdownRenderer(capabilities: TerminalCapabilities(width: 80), mode: .always).render(markdown), width: 80)
        #expect(lines == [shown])
    }

    @Test func aStyleOrLinkWrappedOverLinesIsClosedAtEachLineEndAndReopened() {
        let capabilities = TerminalCapabilities(width: 24, hyperlinks: true)
        let output = MarkdownRenderer(capabilities: capabilities, mode: .always)
            .render("**bold words that wrap over lines** then [a linked text that wraps too](https://a.example/x)")
        let lines = output.split(separator: "\n").map(String.init)
        let boldLines = lines.filter { $0.contains("bold") || $0.contains("wrap over") || $0.contains("lines") }
        #expect(boldLines.count >= 2)
        for line in boldLines { #expect(line.hasPrefix("\u{1B}[1m")) }
        let linkLines = lines.filter { $0.contains("\u{1B}]8;;https://a.example/x\u{1B}\\") }
        #expect(linkLines.count >= 2)
        for line in lines {
            // Every line leaves the terminal as it found it: no open SGR span, no open hyperlink.
            let opened = line.components(separatedBy: "\u{1B}]8;;https").count - 1
            let closed = line.components(separatedBy: "\u{1B}]8;;\u{1B}\\").count - 1
            #expect(opened == closed, "\(line.debugDescription)")
            if line.contains("\u{1B}[1m") || line.contains("\u{1B}[4") {
                #expect(line.hasSuffix("\u{1B}[0m") || line.hasSuffix("\u{1B}]8;;\u{1B}\\"))
            }
        }
    }

    @Test func withoutHyperlinksTheURLFollowsTheText() {
        let lines = screenLines(
            MarkdownRenderer(capabilities: TerminalCapabilities(width: 80), mode: .always)
                .render("[docs](https://docs.example.com/path)"), width: 80)
        #expect(lines == ["docs (https://docs.example.com/path)"])
    }
}
