import Markdown
import TestSupport
import Testing

@testable import TerminalMarkdown

/// Model output nested far deeper than any reader needs renders flattened at `MarkdownParser.maximumNesting`, in the
/// whole render and in the stream alike, without recursing once per level (10⁵ levels would overflow the stack).
struct DeepNestingTests {
    static let levels = 100_000
    static let documents: [(name: String, text: String)] = [
        ("block quotes", String(repeating: "> ", count: levels) + "deep\n"),
        ("bullet lists", String(repeating: "- ", count: levels) + "deep\n"),
        ("ordered lists", String(repeating: "1. ", count: levels) + "deep\n"),
        ("quotes in lists", String(repeating: "- > ", count: levels / 2) + "deep\n"),
        // Kept under `MarkdownStream.fallbackLimit`, past which one paragraph streams as plain lines.
        (
            "emphasis",
            String(repeating: "*x ", count: levels / 10) + "deep" + String(repeating: " x*", count: levels / 10) + "\n"
        )
    ]
    private let capabilities = TerminalCapabilities(width: 100, height: 1000, hyperlinks: true)

    @Test(arguments: documents.map(\.name))
    func deepNestingRendersFlattenedTheSameStreamedAndWhole(name: String) {
        let text = Self.documents.first { $0.name == name }!.text
        let whole = MarkdownRenderer(capabilities: capabilities, mode: .always).render(text)
        let expected = screenLines(whole, width: 100)
        #expect(expected.joined().filter { $0 != " " }.contains("deep"))
        let marks =
            expected.joined().filter { "│•◦▪".contains($0) }.count
            + expected.joined().components(separatedBy: "1.").count - 1
        #expect(marks <= MarkdownParser.maximumNesting)
        for maxStep in [90_000] {
            let output = streamedOutput(
                Snapshots.random(text, seed: 7, maxStep: maxStep), final: text, capabilities: capabilities)
            #expect(screenLines(output, width: 100) == expected, "chunks of up to \(maxStep) scalars")
        }
    }
}
