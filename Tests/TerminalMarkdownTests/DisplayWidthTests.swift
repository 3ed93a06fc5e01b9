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

    /// A code point the wrapper measures alone is a cluster of its own beside each kind of neighbour it is
    /// trusted with (letters, CJK, Hangul syllables, emoji, controls; marks, jamo and Indic consonants before), and
    /// every width known without a lookup is the measured one.
    @Test func codePointShortcutsAgreeWithTheStandardLibrary() {
        let followers: [Unicode.Scalar] = ["a", " ", "\n", "日", "가", "각", "🙂", "\u{AD}", "©", "あ", "—", "☺", "🏺"]
        let leaders: [Unicode.Scalar] = [
            "a", " ", "\t", "\n", "日", "가", "각", "🙂", "é", "\u{301}", "\u{903}", "\u{915}", "\u{94D}", "\u{1F3FB}",
            "\u{FE0F}", "\u{AD}", "\u{200B}", "\u{E0020}", "\u{3099}", "❤", "\u{E01EF}", "\u{FF9E}"
        ]
        var disagreements: [String] = []
        func check(_ first: Unicode.Scalar, _ second: Unicode.Scalar) {
            if (String(first) + String(second)).count != 2 { disagreements.append("\(first) \(second)") }
        }
        // Every code point of the planes with letters, symbols, emoji and tags; a sample of the CJK, private and
        // unassigned planes (the whole range took minutes in a debug build).
        for value in UInt32(0)...0x10FFFF {
            guard value < 0x20000 || (0xE0000..<0xE1000).contains(value) || value % 97 == 0,
                let scalar = Unicode.Scalar(value)
            else { continue }
            if GraphemeBoundary.endsBefore(after: value) { for follower in followers { check(scalar, follower) } }
            if GraphemeBoundary.startsCluster(value) {
                for leader in leaders where GraphemeBoundary.endsBefore(after: leader.value) { check(leader, scalar) }
            }
            if let width = DisplayWidth.commonWidth(scalar), width != DisplayWidth.measuredWidth(scalar) {
                disagreements.append("width \(value)")
            }
        }
        #expect(followers.allSatisfy { GraphemeBoundary.startsCluster($0.value) })
        #expect(disagreements.isEmpty)
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
