import EditorRPC
import Foundation
import LMStudio
import Simulator
import TestSupport
import Testing

/// `chat/send` with `freshContext: "recap"` after the server lost the conversation's context.
@Suite struct RecapMethodTests {
    @Test func aResendWithARecapStartsTheFreshContextWithTheEarlierTurns() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let first = await rpc.response(to: await rpc.request("chat/send", ["text": "echo:remember the heron"])).0
        let conversation = try #require(first?["result"]?["conversationId"])
        fixture.simulator.reset()
        let lost = await rpc.response(
            to: await rpc.request("chat/send", ["conversationId": conversation, "text": "recall"])
        ).0
        #expect(lost?.errorKind == "continuation_lost", "\(String(describing: lost))")
        #expect(lost?["error"]?["data"]?["outcome"] == "needs_decision")
        #expect(lost?["error"]?["data"]?["decision"]?["type"] == "fresh_context")
        #expect(lost?["error"]?["data"]?["returned"]?["text"] == "recall", "the message comes back to the editor")
        let again = await rpc.response(
            to: await rpc.request(
                "chat/send", ["conversationId": conversation, "text": "recall", "freshContext": "recap"])
        ).0
        let result = try #require(again?["result"], "\(String(describing: again))")
        #expect(
            result["status"] == "complete" && result["recap"] == .bool(true) && result["freshContext"] == .bool(true))
        let input = fixture.requests(to: "/api/v1/chat").last?.field("input") ?? ""
        #expect(
            input.hasPrefix("[llmster recap:") && input.contains("User: echo:remember the heron")
                && input.hasSuffix("recall"))
        let bad = await rpc.response(
            to: await rpc.request("chat/send", ["conversationId": conversation, "text": "x", "freshContext": "maybe"])
        ).0
        #expect(bad?.errorKind == "invalid_params")
    }
}
