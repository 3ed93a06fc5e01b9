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
        ("Ω", 1),
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
}
