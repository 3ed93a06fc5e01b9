import Foundation
import Simulator
import TestSupport
import Testing

/// The engine's "did you mean" in the REPL: the nearest model key for `/model`, the closest titles for `/open`.
@Suite(.spawnsProcesses) struct ReplSuggestionTests {
    @Test func anUnknownModelOrConversationGetsTheEnginesSuggestion() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let model = try await terminal.enter("/model acme/thinekr-8b")
        #expect(model.contains("did you mean acme/thinker-8b?"), "\(model)")
        try await terminal.enter("echo:Explain SSE")
        try await terminal.enter("/new")
        let opened = try await terminal.enter("/open echo:Explain SEE")
        #expect(opened.contains("no conversation matches \"echo:Explain SEE\""), "\(opened)")
        #expect(opened.contains("close ones:") && opened.contains("echo:Explain SSE"), "\(opened)")
    }
}
