import TestSupport
import Testing

@testable import TerminalMarkdown

/// Tables that do not fit: word-boundary wrapping, numbers kept whole, and the record layout.
struct TableLayoutTests {
    static let document = """
        | Model | Params | Context | Quant | Size | Speed | Notes |
        |---|--:|--:|---|--:|--:|---|
        | qwen2.5-7b-instruct | 7.6B | 131072 | Q4_K_M | 4.68 GB | 42.5 tok/s | good general model |
        | llama-3.2-3b | 3.2B | 131072 | Q8_0 | 3.42 GB | 61.0 tok/s | fast, small |
        | mistral-nemo | 12.2B | 1024000 | Q4_K_M | 7.48 GB | 23.1 tok/s | long context window for documents |

        | Language | Typing | First released |
        |---|---|---:|
        | Swift | static, inferred, with protocols and generics | 2014 |
        | Python | dynamic, optional hints checked by external tools | 1991 |
        | Go | static, structural interfaces | 2009 |
        """

    private func render(_ text: String, width: Int, dumb: Bool = true) -> [String] {
        let capabilities = TerminalCapabilities(isDumb: dumb, width: width)
        return MarkdownRenderer(capabilities: capabilities, mode: .always).lines(text)
    }

    @Test(arguments: [40, 80, 120])
    func tablesMatchGolden(width: Int) {
        let capabilities = TerminalCapabilities(width: width)
        assertGolden(
            MarkdownRenderer(capabilities: capabilities, mode: .always).render(Self.document),
            named: "table-layout.color-\(width)", in: snapshotDirectory(for: #filePath))
        assertGolden(
            render(Self.document, width: width).map { $0 + "\n" }.joined(),
            named: "table-layout.dumb-\(width)", in: snapshotDirectory(for: #filePath))
    }

    @Test(arguments: [40, 60, 80, 120])
    func noLineIsWiderThanTheTerminal(width: Int) {
        for line in render(Self.document, width: width) { #expect(DisplayWidth.of(line) <= width, "\(line)") }
    }

    @Test func aSevenColumnTableAtFortyColumnsBecomesRecords() {
        let lines = render(Self.document, width: 40)
        #expect(lines.contains("Model: qwen2.5-7b-instruct"))
        #expect(lines.contains("Context: 1024000"))
        #expect(!lines.contains { $0.hasPrefix("+") })
    }

    @Test func cellsWrapAtWordsAndNumbersStayWhole() {
        let lines = render(Self.document, width: 60)
        let text = lines.joined(separator: "\n")
        for number in ["131072", "1024000", "4.68", "42.5", "2014", "1991"] { #expect(text.contains(number)) }
        let languageRows = lines.drop { !$0.contains("Language") }
        #expect(languageRows.contains { $0.contains("│ static, inferred, with") })
        #expect(languageRows.contains { $0.hasSuffix(" 2014 │") })
    }

    /// Columns share the width by content: long unbreakable code in two columns does not squeeze the prose of the
    /// third to a sliver (it used to get the 14 columns the paths left over, about five words a row).
    @Test func longCodeDoesNotSqueezeTheProseColumn() {
        let text = """
            | Option | Default | Description |
            |---|---|---|
            | `--library=/var/lib/llmster/db` | `~/.local/share/llmster/db` | Where the conversations are kept; the directory is created on first use and must be writable by you, or every save fails with a clear message. |
            """
        let lines = render(text, width: 80)
        let header = lines.first { $0.contains("Description") }!
        let descriptionWidth = header.split(separator: "│").last!.count - 2
        #expect(descriptionWidth >= 25, "\(header)")
        for line in lines { #expect(DisplayWidth.of(line) <= 80, "\(line)") }
    }

    @Test func columnWidthsComeFromEveryRow() {
        let rows = (1...30).map { "| \($0) | row \($0) |" }.joined(separator: "\n")
        let text = "| n | label |\n|---|---|\n" + rows + "\n| 31 | the widest label, in the last row |\n"
        let lines = render(text, width: 80)
        let widths = Set(lines.map { DisplayWidth.of($0) })
        #expect(widths.count == 1)
        #expect(lines.contains { $0.contains("│ the widest label, in the last row │") })
    }
}
