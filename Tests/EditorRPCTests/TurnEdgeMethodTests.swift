import EditorRPC
import Foundation
import LMStudio
import Testing
import TestSupport

/// rpc at the turn's edges: an editor's undo takes an exchange back from the library, and a conversation another
/// process changes is announced.
@Suite struct TurnEdgeMethodTests {
    @Test func withdrawTakesTheLastExchangeBackSoRegenerateAnswersTheOneBefore() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let first = try #require(await rpc.call("chat/send", ["text": "echo:one"])?["result"])
        let conversation = try #require(first["conversationId"])
        // A reply still streaming: the editor cancels it, then withdraws it.
        let slow = await rpc.request("chat/send", ["conversationId": conversation, "text": "[[sim:stall=30]] echo:two three four five"])
        var replyId: JSONValue?
        while replyId == nil, let message = await rpc.next() {
            if message["method"] == "chat/event", message["params"]?["type"] == "message.delta" { replyId = message["params"]?["messageId"] }
        }
        await rpc.notify("$/cancelRequest", ["id": slow])
        let reply = try #require(replyId)
        let withdrawn = try #require(await rpc.call("chat/withdraw", ["conversationId": conversation, "messageId": reply])?["result"],
                                     "the withdrawal waits for the cancelled send")
        #expect(withdrawn["messages"]?.array.compactMap { $0["text"]?.string } == ["echo:one", "one"])
        let got = try #require(await rpc.call("conversations/get", ["id": conversation])?["result"])
        #expect(got["messages"]?.array.count == 2, "the library no longer holds the exchange")

        let again = try #require(await rpc.call("chat/send", ["conversationId": conversation, "retry": true])?["result"])
        #expect(again["message"]?["text"] == "one", "regenerate answers the message the editor shows last")
        let alternatives = await rpc.call("conversations/alternatives", ["conversationId": conversation])
        #expect(alternatives?["result"]?["alternatives"]?.array.count == 2, "\(String(describing: alternatives))")
        let earlier = try #require(first["message"]?["id"])
        let refused = await rpc.call("chat/withdraw", ["conversationId": conversation, "messageId": earlier])
        #expect(refused?["result"] == nil, "an exchange other than the last is not withdrawn: \(String(describing: refused))")
        await rpc.closeInput()
    }

    @Test func aConversationChangedByAnotherProcessIsAnnounced() async throws {
        let fixture = try SimulatorFixture()
        let editor = try RPCHarness(serverURL: fixture.url)
        await editor.initialize()
        let sent = try #require(await editor.call("chat/send", ["text": "echo:from this editor"])?["result"])
        let conversation = try #require(sent["conversationId"])
        // Another process on the same library (another editor's llmster) sends to the conversation.
        let other = try RPCHarness(serverURL: fixture.url, librarySandbox: editor.sandbox)
        await other.initialize()
        #expect(await other.call("chat/send", ["conversationId": conversation, "text": "echo:from elsewhere"])?["result"] != nil)
        var announced: JSONValue?
        while announced == nil, let message = await editor.next() {
            if message["method"] == "conversation/changed" { announced = message["params"] }
        }
        #expect(announced?["conversationId"] == conversation, "\(String(describing: announced))")
        await other.closeInput()
        await editor.closeInput()
    }
}
