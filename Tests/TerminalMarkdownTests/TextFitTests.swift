import TestSupport
import Testing

@testable import TerminalMarkdown

/// Cutting and padding plain text to a terminal's columns: by the terminal's width model, with an ellipsis it can show.
struct TextFitTests {
    static let utf8 = TextFit(widthModel: .grapheme, isUTF8: true)
    static let ascii = TextFit(widthModel: .grapheme, isUTF8: false)

    @Test func wideCharactersAreCutByColumnsNotCharacters() {
        #expect(Self.utf8.cut("日本語の文章", to: 7) == "日本語…")
        // A wide character that would overhang the last column is left out whole.
        #expect(Self.utf8.cut("日本語の文章", to: 6) == "日本…")
        #expect(Self.utf8.pad("日本語の文章", to: 6) == "日本… ")
        #expect(Self.utf8.cut("日本語", to: 6) == "日本語", "text that fits is kept whole")
    }

    @Test func emojiSequencesAreMeasuredAsTheTerminalCountsThem() {
        let family = "👨‍👩‍👧‍👦 family"
        let grapheme = TextFit(widthModel: .grapheme)
        let codepoint = TextFit(widthModel: .codepoint)
        #expect(grapheme.columns(family) == 9)
        #expect(codepoint.columns(family) == 15)
        #expect(grapheme.cut(family, to: 10) == family)
        #expect(codepoint.cut(family, to: 10) == "👨‍👩‍👧‍👦 …", "a codepoint terminal draws the family 8 columns wide")
        #expect(grapheme.cut(family, to: 5) == "👨‍👩‍👧‍👦 f…")
        #expect(grapheme.pad("1️⃣", to: 3) == "1️⃣ ")
        #expect(codepoint.pad("1️⃣", to: 3) == "1️⃣  ")
    }

    @Test(arguments: WidthModel.allCases)
    func ambiguousWidthCharactersTakeOneColumnInEitherModel(model: WidthModel) {
        // East Asian Ambiguous characters are narrow, as wcwidth and the renderer count them.
        let fit = TextFit(widthModel: model)
        #expect(fit.columns("Ω①±→") == 4)
        #expect(fit.cut("Ω①±→x", to: 3) == "Ω①…")
        #expect(fit.pad("Ω①", to: 4) == "Ω①  ")
    }

    @Test func aTerminalWithoutUTF8GetsAnASCIIEllipsis() {
        #expect(Self.ascii.ellipsis == "...")
        #expect(Self.ascii.cut("a rather long title", to: 10) == "a rathe...")
        #expect(Self.ascii.cut("日本語の文章", to: 7) == "日本...")
        #expect(Self.ascii.cut("long", to: 2) == "..", "a column narrower than the ellipsis still shows a cut")
        #expect(Self.ascii.cut("long", to: 0).isEmpty)
        #expect(Self.utf8.cut("long", to: 1) == "…")
    }

    @Test(arguments: [
        "a rather long title", "日本語の文章です", "👨‍👩‍👧‍👦🧑🏽‍💻👍🏽 keycaps 1️⃣2️⃣", "e\u{301}e\u{301}e\u{301}e\u{301}", "tab\tstop\tcut"
    ])
    func noCutIsWiderThanItsColumn(text: String) {
        for fit in [
            Self.utf8, Self.ascii, TextFit(widthModel: .codepoint), TextFit(widthModel: .codepoint, isUTF8: false)
        ] {
            for width in 0...24 {
                let cut = fit.cut(text, to: width)
                #expect(fit.columns(cut) <= width, "'\(cut)' at \(width) under \(fit)")
                #expect(cut == text || cut.hasSuffix(String(fit.ellipsis.prefix(width))), "a cut is marked: '\(cut)'")
                #expect(fit.columns(fit.pad(text, to: width)) == width)
            }
        }
    }

    @Test func aWordTooWideForALineSplitsAfterAtLeastOneCluster() {
        let (head, rest) = Self.utf8.split("日本語", columns: 3)
        #expect(head == "日" && rest == "本語")
        let (first, after) = Self.utf8.split("日本語", columns: 1)
        #expect(first == "日" && after == "本語", "a line narrower than a cluster still takes one")
    }

    @Test func theTerminalsLocaleAndWidthModeChooseTheFit() {
        let plain = TerminalCapabilities.detect(fd: -1, environment: ["LANG": "C", "TERM": "xterm-kitty"])
        #expect(plain.textFit == TextFit(widthModel: .grapheme, isUTF8: false))
        let codepoint = DisplaySettings(theme: "auto", hyperlinks: "auto", widthMode: "codepoint", codeFences: "hide")
        let utf8 = TerminalCapabilities.detect(
            fd: -1, environment: ["LANG": "C.UTF-8", "TERM": "xterm-kitty"], settings: codepoint)
        #expect(utf8.textFit == TextFit(widthModel: .codepoint, isUTF8: true))
    }

    @Test func theReplysOneLinePiecesCutWithTheTerminalsEllipsisAndWidth() {
        let arguments = String(repeating: "👨‍👩‍👧‍👦", count: 20)
        let call = ToolCallSummary(name: "search", arguments: arguments, result: .succeeded(bytes: 10))
        let ascii = ReplyPresenter(capabilities: TerminalCapabilities(isDumb: true, isUTF8: false, width: 40))
        let asciiLine = ascii.toolCallLine(call)
        #expect(asciiLine.hasSuffix("... ok 10 B") && !asciiLine.contains("…"), "\(asciiLine)")
        #expect(DisplayWidth.of(asciiLine) <= 39)
        let codepoint = ReplyPresenter(
            capabilities: TerminalCapabilities(isDumb: true, width: 40, widthModel: .codepoint))
        let codepointLine = codepoint.toolCallLine(call)
        #expect(
            DisplayWidth.of(codepointLine, model: .codepoint) <= 39,
            "measured as a codepoint terminal draws it: \(codepointLine)")
        #expect(codepointLine.hasSuffix("… ✓ 10 B"))
    }
}
