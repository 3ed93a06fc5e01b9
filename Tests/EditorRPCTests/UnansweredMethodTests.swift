import EditorRPC
import Foundation
import LMStudio
import Library
import TestSupport
import Testing

/// rpc `conversations/get` says which user messages no reply followed, so an editor marks them as the REPL does.
@Suite struct UnansweredMethodTests {
    @Test func userMessagesSayWhetherTheyWereAnswered() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let sent = try #require(await rpc.call("chat/send", ["text": "echo:first"])?["result"])
        let id = try #require(sent["conversationId"]?.string)
        // As an older version left a message whose send failed.
        try LibraryStore(path: rpc.sandbox.libraryPath)
            .appendMessage(conversationId: id, role: .user, MessageContent(text: "RECALL"))

        let messages = try #require(
            await rpc.call("conversations/get", ["id": .string(id)])?["result"]?["messages"]?.array)
        #expect(messages.map { $0["role"] } == ["user", "assistant", "user"])
        #expect(messages.map { $0["unanswered"] } == [.bool(false), nil, .bool(true)], "only user messages carry it")
        await rpc.closeInput()
    }
}
