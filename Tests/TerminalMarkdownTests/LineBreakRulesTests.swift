import Testing

@testable import TerminalMarkdown

/// CJK text breaks where CJK typesetting allows: closing punctuation never starts a line, opening punctuation never
/// ends one, in prose and table cells, streamed and whole alike.
struct LineBreakRulesTests {
    private func rows(_ markdown: String, width: Int) -> [String] {
        let capabilities = TerminalCapabilities(isDumb: false, noColor: true, width: width, background: .dark)
        return MarkdownRenderer(capabilities: capabilities, mode: .always).render(markdown)
            .replacing(/\u{1B}\[[0-9;?]*[A-Za-z]/, with: "")
            .split(separator: "\n").map(String.init)
    }

    @Test(arguments: [20, 21, 30, 31, 40])
    func closingPunctuationNeverStartsARowAndOpeningNeverEndsOne(width: Int) {
        let paragraph = "使用框架、Flask，如Core。日本語の文章と中文句子，以及「引用」と（括弧）の折り返しが正しく行われるか確認します。"
        let shown = rows(paragraph, width: width)
        #expect(shown.count > 1, "\(shown)")
        #expect(shown.joined() == paragraph, "nothing is lost: \(shown)")
        for row in shown.dropFirst() {
            #expect(!LineBreakRules.mayNotStartLine(row.first!), "'\(row)' starts with closing punctuation: \(shown)")
        }
        for row in shown.dropLast() {
            #expect(!LineBreakRules.mayNotEndLine(row.last!), "'\(row)' ends with opening punctuation: \(shown)")
        }
    }

    @Test func aTableCellKeepsThePunctuationRulesToo() {
        let cell = "使用框架、Flask，如Core。日本語の文章と中文句子，以及「引用」の折り返し。"
        let shown = rows("| 説明 | 値 |\n|---|---|\n| \(cell) | 1 |", width: 40)
        let lines = shown.filter { $0.contains("│") }.compactMap { row in
            row.split(separator: "│", omittingEmptySubsequences: false).dropFirst().first?.trimmingCharacters(
                in: .whitespaces)
        }.filter { !$0.isEmpty && $0 != "説明" }
        #expect(lines.count > 1 && lines.joined() == cell, "\(shown.joined(separator: "\n"))")
        for line in lines.dropFirst() {
            #expect(!LineBreakRules.mayNotStartLine(line.first!), "'\(line)' starts with closing punctuation: \(shown)")
        }
    }
}
