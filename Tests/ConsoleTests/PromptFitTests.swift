import TerminalMarkdown
import Testing

@testable import Console

/// The prompt's line of facts on a narrow terminal: the title gives way first, so the model and the context figure
/// stay whole (the figure used to be cut: `ctx 164/4k 4…`).
struct PromptFitTests {
    let parts = ["acme/tiny-1b (loaded)", "ctx 164/4k 4%", "a conversation with a long title"]

    @Test func theTitleIsCutFirst() {
        let line = ReplSession.fitted(parts, to: 45, fit: TextFit())
        #expect(line.hasPrefix("acme/tiny-1b (loaded) · ctx 164/4k 4% · a"), "\(line)")
        #expect(line.hasSuffix("…") && DisplayWidth.of(line) <= 45, "\(line)")
    }

    @Test func thenLeftOutAndOnlyThenTheRestIsCut() {
        #expect(ReplSession.fitted(parts, to: 37, fit: TextFit()) == "acme/tiny-1b (loaded) · ctx 164/4k 4%")
        let narrow = ReplSession.fitted(parts, to: 30, fit: TextFit())
        #expect(narrow.hasPrefix("acme/tiny-1b (loaded) · ctx") && DisplayWidth.of(narrow) <= 30, "\(narrow)")
    }

    @Test func aLineThatFitsIsWhole() {
        #expect(ReplSession.fitted(parts, to: 100, fit: TextFit()) == parts.joined(separator: " · "))
    }
}
