import TestSupport
import Testing

@testable import TerminalMarkdown

struct DisplayWidthTests {
    static let samples: [(String, Int)] = [
        ("hello", 5),
        ("日本語", 6),
        ("中文，", 6),
        ("한국어", 6),
        ("ｆｕｌｌ", 8),
        ("👨‍👩‍👧‍👦", 2),
        ("🧑🏽‍💻", 2),
        ("🇯🇵", 2),
        ("🇯🇵🇫🇷", 4),
        ("👍🏽", 2),
        ("🎉", 2),
        ("❤️", 2),
        ("❤", 1),
        ("1️⃣", 2),
        ("e\u{301}", 1),
        ("a\u{0308}\u{0301}", 1),
        ("\u{200B}", 0),
        ("\u{200D}", 0),
        ("\u{FE0F}", 0),
        ("\u{0007}", 0),
        ("\t", 8),
        ("ab\t", 8),
        ("ab\tc", 9),
        ("日本\t", 8),
        ("–—…", 3),
        ("Ω", 1)
    ]

    @Test(arguments: samples)
    func stringWidth(text: String, columns: Int) {
        #expect(DisplayWidth.of(text) == columns)
    }

    @Test func wideTextWrapsByColumnsNotCharacters() {
        let capabilities = TerminalCapabilities(isDumb: true, width: 11)
        let lines = MarkdownRenderer(capabilities: capabilities, mode: .always).lines("日本語の文章です")
        #expect(lines == ["日本語の文", "章です"])
    }

    static let codepointSamples: [(String, Int)] = [
        ("👨‍👩‍👧‍👦", 8), ("🧑🏽‍💻", 6), ("👍🏽", 4), ("1️⃣", 1), ("❤️", 1), ("🎉", 2), ("日本語", 6), ("e\u{301}", 1)
    ]

    @Test(arguments: codepointSamples)
    func codepointTerminalsCountEveryCodePoint(text: String, columns: Int) {
        #expect(DisplayWidth.of(text, model: .codepoint) == columns)
    }

    @Test(arguments: [
        (["TERM": "xterm-256color", "VTE_VERSION": "7600"], WidthModel.codepoint), (["TERM": "xterm-kitty"], .grapheme),
        (["TERM_PROGRAM": "WezTerm"], .grapheme), (["TERM_PROGRAM": "WezTerm", "TMUX": "/tmp/t"], .codepoint),
        (["TERM": "foot"], .codepoint), ([:], .codepoint)
    ])
    func theWidthModelFollowsTheTerminal(environment: [String: String], model: WidthModel) {
        #expect(TerminalCapabilities.detect(fd: -1, environment: environment).widthModel == model)
        let fixed = DisplaySettings(theme: "auto", hyperlinks: "auto", widthMode: "grapheme", codeFences: "hide")
        #expect(TerminalCapabilities.detect(fd: -1, environment: environment, settings: fixed).widthModel == .grapheme)
    }

    static let emoji = "Family 👨‍👩‍👧‍👦 at work 🧑🏽‍💻, keycaps 1️⃣ 2️⃣ 3️⃣ and thumbs 👍🏽 in a sentence that wraps: 👨‍👩‍👧‍👦 👨‍👩‍👧‍👦 👨‍👩‍👧‍👦 👨‍👩‍👧‍👦 end."

    @Test(arguments: [40, 80, 120])
    func emojiSequencesWrapByTheTerminalsModel(width: Int) {
        for model in WidthModel.allCases {
            let capabilities = TerminalCapabilities(isDumb: true, width: width, widthModel: model)
            let output = MarkdownRenderer(capabilities: capabilities, mode: .always).render(Self.emoji)
            assertGolden(output, named: "emoji-width.\(model.rawValue)-\(width)", in: snapshotDirectory(for: #filePath))
            for line in output.split(separator: "\n") { #expect(DisplayWidth.of(String(line), model: model) <= width) }
        }
    }
}
