import Foundation
import Simulator
import TestSupport
import Testing

/// The engine's "did you mean" in the REPL: the nearest model key for `/model`, the closest titles for `/open`.
@Suite struct ReplSuggestionTests {
    @Test func anUnknownModelOrConversationGetsTheEnginesSuggestion() throws {
        let repl = try ReplHarness()
        let terminal = try repl.start()
        let model = try terminal.enter("/model acme/thinekr-8b")
        #expect(model.contains("did you mean acme/thinker-8b?"), "\(model)")
        try terminal.enter("echo:Explain SSE")
        try terminal.enter("/new")
        let opened = try terminal.enter("/open echo:Explain SEE")
        #expect(opened.contains("no conversation matches \"echo:Explain SEE\""), "\(opened)")
        #expect(opened.contains("close ones:") && opened.contains("echo:Explain SSE"), "\(opened)")
    }
}
