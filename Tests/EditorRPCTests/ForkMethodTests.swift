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

    /// Editors show a fork's origin and a search hit by the title every face shows, which rpc sends: an untitled
    /// origin reads "Untitled" without a rule of the editor's own.
    @Test func aForksOriginAndASearchHitCarryTheirDisplayTitle() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let sent = await rpc.response(to: await rpc.request("chat/send", ["text": "echo:a zeppelin"])).0
        let original = try #require(sent?["result"]?["conversationId"])
        #expect(await rpc.call("conversations/rename", ["id": original, "title": ""])?["error"] == nil)
        let fork = try #require(
            await rpc.call("conversations/fork", ["conversationId": original, "atReply": 1])?["result"])
        #expect(fork["forkedFrom"]?["title"] == "" && fork["forkedFrom"]?["displayTitle"] == "Untitled")
        let forkId = try #require(fork["conversation"]?["id"])
        let got = await rpc.call("conversations/get", ["id": forkId])?["result"]
        #expect(got?["forkedFrom"]?["displayTitle"] == "Untitled")
        let hits = await rpc.call("conversations/search", ["query": "zeppelin"])?["result"]?["hits"]?.array ?? []
        #expect(hits.first { $0["conversationId"] == original }?["displayTitle"] == "Untitled", "\(hits)")
    }
}
