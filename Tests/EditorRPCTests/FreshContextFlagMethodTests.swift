import EditorRPC
import Foundation
import LMStudio
import Library
import Simulator
import TestSupport
import Testing

/// A system prompt changed after the server context began waits for a fresh context; the engine saves that on the
/// conversation, so another session (another editor buffer, the REPL, a restart) still knows it.
@Suite struct FreshContextFlagMethodTests {
    @Test func theFlagIsSavedReadByAnotherSessionAndClearedByTheFreshContext() async throws {
        let fixture = try SimulatorFixture()
        let first = try RPCHarness(serverURL: fixture.url)
        await first.initialize()
        let sent = try #require(
            await first.call("chat/send", ["text": "echo:first", "systemPrompt": "Be brief."])?["result"])
        let id = try #require(sent["conversationId"])
        #expect(
            await first.call("conversations/get", ["id": id])?["result"]?["conversation"]?["needsFreshContext"]
                == false,
            "the first request carried the prompt")
        let changed = try #require(
            await first.call("conversations/setSettings", ["conversationId": id, "systemPrompt": "Be verbose."])?[
                "result"])
        #expect(changed["needsFreshContext"] == true)
        await first.closeInput()

        // A new rpc process on the same library: the flag is the library's, not the first session's.
        let library = try LibraryStore(path: first.sandbox.libraryPath)
        let conversationId = try #require(id.string)
        #expect(try library.conversation(id: conversationId)?.needsFreshContext == true)
        let second = try RPCHarness(serverURL: fixture.url, librarySandbox: first.sandbox)
        await second.initialize()
        let listed = await second.call("conversations/list")?["result"]?["conversations"]?.array ?? []
        #expect(listed.first { $0["id"] == id }?["needsFreshContext"] == true)
        let unchanged = try #require(
            await second.call("conversations/setSettings", ["conversationId": id, "settings": .object([:])])?["result"])
        #expect(unchanged["needsFreshContext"] == true, "an unrelated change does not forget it")

        _ = await second.call("chat/send", ["conversationId": id, "text": "echo:again", "freshContext": true])
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("system_prompt") == "Be verbose.")
        #expect(
            await second.call("conversations/get", ["id": id])?["result"]?["conversation"]?["needsFreshContext"]
                == false)
        await second.closeInput()
    }
}
