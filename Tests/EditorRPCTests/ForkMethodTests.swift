import EditorRPC
import Foundation
import LMStudio
import Simulator
import TestSupport
import Testing

/// `conversations/fork`, and the fork's mark where editors look for it: `conversations/get` and the listing.
@Suite struct ForkMethodTests {
    @Test func aForkAtAnEarlierReplyIsMarkedInTheListing() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let first = await rpc.response(to: await rpc.request("chat/send", ["text": "echo:one"])).0
        let original = try #require(first?["result"]?["conversationId"])
        _ = await rpc.response(to: await rpc.request("chat/send", ["conversationId": original, "text": "echo:two"]))
        let fork = try #require(
            await rpc.call("conversations/fork", ["conversationId": original, "atReply": 1])?["result"])
        #expect(fork["forkedFrom"]?["conversationId"] == original && fork["forkedFrom"]?["reply"] == 1)
        let forkId = try #require(fork["conversation"]?["id"])
        let messages = await rpc.call("conversations/get", ["id": forkId])?["result"]?["messages"]?.array ?? []
        #expect(messages.compactMap { $0["text"]?.string } == ["echo:one", "one"])
        let list = await rpc.call("conversations/list")?["result"]?["conversations"]?.array ?? []
        #expect(list.first { $0["id"] == forkId }?["forkedFrom"]?["conversationId"] == original)
        #expect(list.first { $0["id"] == original }?["forkedFrom"] == .null)
        let beyond = await rpc.call("conversations/fork", ["conversationId": original, "atReply": 5])
        #expect(beyond?.errorKind == "not_found")
    }
}
