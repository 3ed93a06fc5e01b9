import TestSupport
import Testing

@testable import TerminalMarkdown

/// GitHub alerts (`> [!NOTE]` …) show a coloured title and bar instead of their marker, streamed and whole alike.
struct AlertTests {
    private let capabilities = TerminalCapabilities(width: 60, height: 1000)

    private func whole(_ text: String, _ capabilities: TerminalCapabilities) -> [String] {
        screenLines(MarkdownRenderer(capabilities: capabilities, mode: .always).render(text), width: capabilities.width)
    }

    @Test(arguments: Alert.Kind.allCases)
    func anAlertShowsItsTitleInItsColourInsteadOfTheMarker(kind: Alert.Kind) {
        let text = "Before.\n\n> [!\(kind.rawValue.uppercased())]\n> Back up the library first.\n"
        #expect(whole(text, capabilities) == ["Before.", "", "│ \(kind.title)", "│ Back up the library first."])
        var parameters: [UInt8] = []
        MarkdownTheme.standard.alert(kind).appendParameters(at: .color, to: &parameters)
        let colour = String(decoding: parameters, as: UTF8.self)
        let rendered = MarkdownRenderer(capabilities: capabilities, mode: .always).render(text)
        #expect(rendered.contains("\u{1B}[1;\(colour)m\(kind.title)\u{1B}[0m"))
        #expect(rendered.contains("\u{1B}[\(colour)m│\u{1B}[0m Back up"))
    }

    @Test func aMarkerWithTextAfterItOrAnUnknownKindIsAPlainQuote() {
        #expect(whole("> [!NOTE] and more\n", capabilities) == ["│ [!NOTE] and more"])
        #expect(whole("> [!DANGER]\n> text\n", capabilities) == ["│ [!DANGER] text"])
        #expect(whole("> [!tip]\n", capabilities) == ["│ Tip"])
    }

    /// An alert past `MarkdownStream.containerLimit` streams child by child through a nested stream; its title and
    /// bar come out as in the whole render, and the marker line never shows.
    @Test func aLongAlertStreamsToTheScreenOfTheWholeRender() {
        let body = (0..<120).map { "> Step \($0): check the *backup* before going on." }.joined(separator: "\n>\n")
        let text = "Intro.\n\n> [!CAUTION]\n" + body + "\n\nAfter."
        let expected = whole(text, capabilities)
        #expect(expected[2] == "│ Caution")
        for seed in UInt64(0)..<3 {
            let output = streamedOutput(
                Snapshots.random(text, seed: seed, maxStep: 300), final: text, capabilities: capabilities)
            let streamed = screenLines(output, width: 60)
            #expect(streamed == expected, "seed \(seed)")
            #expect(!output.contains("[!CAUTION]"))
        }
    }
}
