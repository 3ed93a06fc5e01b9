import EditorRPC
import Foundation
import LMStudio
import Simulator
import Testing
import TestSupport

/// `chat/send` against a hostile server: a final event that drops what streamed, and a second send to a
/// conversation still being answered.
@Suite struct HostileReplyMethodTests {
    @Test func aRewrittenReplyNamesTheAlternativeKeepingTheStreamedVersion() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let sent = try #require(await rpc.call("chat/send", ["text": "[[sim:final-drop=answer]] echo:streamed words"])?["result"])
        let message = try #require(sent["message"])
        #expect(message["isRewritten"] == true)
        #expect(message["text"] == "")
        let kept = try #require(message["streamedVersionId"]?.string, "\(message)")
        let listed = try #require(await rpc.call("conversations/alternatives", ["conversationId": sent["conversationId"]!])?["result"])
        let alternatives = listed["alternatives"]?.array ?? []
        #expect(alternatives.compactMap { $0["id"]?.string } == [kept, message["id"]?.string].compactMap { $0 })
        #expect(alternatives.first?["text"] == "streamed words", "the streamed version, as it arrived")
        await rpc.closeInput()
    }

    @Test func aSecondSendToAConversationBeingAnsweredIsBusy() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let first = try #require(await rpc.call("chat/send", ["text": "echo:first"])?["result"]?["conversationId"])
        let streaming = await rpc.request("chat/send", ["conversationId": first, "text": "[[sim:stall=30]] echo:alpha beta gamma delta"])
        #expect(await rpc.waitForAnswerText())
        let second = await rpc.call("chat/send", ["conversationId": first, "text": "echo:second"])
        #expect(second?.errorKind == "busy", "\(String(describing: second))")
        #expect(second?["error"]?["message"]?.string?.contains("is being answered by another reply in this process") == true, "\(String(describing: second))")
        await rpc.notify("$/cancelRequest", ["id": streaming])
        _ = await rpc.response(to: streaming)
        let third = await rpc.call("chat/send", ["conversationId": first, "text": "echo:third"])
        #expect(third?["result"]?["status"] == "complete", "the lock went with the cancelled reply: \(String(describing: third))")
        await rpc.closeInput()
    }
}
