import EditorRPC
import Foundation
import LMStudio
import Simulator
import TestSupport
import Testing

/// `chat/send` against a hostile server: a final event that drops what streamed, and a second send to a
/// conversation still being answered.
@Suite struct HostileReplyMethodTests {
    @Test func aRewrittenReplyNamesTheAlternativeKeepingTheStreamedVersion() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let sent = try #require(
            await rpc.call("chat/send", ["text": "[[sim:final-drop=answer]] echo:streamed words"])?["result"])
        let message = try #require(sent["message"])
        #expect(message["isRewritten"] == true)
        #expect(message["text"] == "")
        let kept = try #require(message["streamedVersionId"]?.string, "\(message)")
        let listed = try #require(
            await rpc.call("conversations/alternatives", ["conversationId": sent["conversationId"]!])?["result"])
        let alternatives = listed["alternatives"]?.array ?? []
        #expect(alternatives.compactMap { $0["id"]?.string } == [kept, message["id"]?.string].compactMap { $0 })
        #expect(alternatives.first?["text"] == "streamed words", "the streamed version, as it arrived")
        await rpc.closeInput()
    }

    /// A send to a conversation this session is answering waits its turn (it is not refused), and follows the reply
    /// before it, even a cancelled one, which keeps what arrived.
    @Test func aSecondSendToAConversationBeingAnsweredWaitsItsTurn() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let first = try #require(await rpc.call("chat/send", ["text": "echo:first"])?["result"]?["conversationId"])
        let streaming = await rpc.request(
            "chat/send", ["conversationId": first, "text": "[[sim:stall=30]] echo:alpha beta gamma delta"])
        #expect(await rpc.waitForAnswerText())
        let second = await rpc.request("chat/send", ["conversationId": first, "text": "echo:second"])
        await rpc.notify("$/cancelRequest", ["id": streaming])
        let (cancelled, _) = await rpc.response(to: streaming)
        #expect(cancelled?["result"]?["outcome"] == "cancelled", "\(String(describing: cancelled))")
        let (answered, _) = await rpc.response(to: second)
        #expect(
            answered?["result"]?["status"] == "complete",
            "the second send followed the cancelled reply: \(String(describing: answered))")
        let got = try #require(await rpc.call("conversations/get", ["id": first])?["result"])
        #expect(
            got["messages"]?.array.compactMap { $0["role"] == "user" ? $0["text"]?.string : nil }
                == ["echo:first", "[[sim:stall=30]] echo:alpha beta gamma delta", "echo:second"])
        await rpc.closeInput()
    }
}
