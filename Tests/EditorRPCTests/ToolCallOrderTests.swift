import EditorRPC
import Foundation
import LMStudio
import Testing
import TestSupport

@Suite struct ToolCallOrderTests {
    @Test func conversationsGetSaysWhereEachToolCallCameInTheReply() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let sent = try #require(await rpc.call("chat/send", ["text": "[[sim:tools]] find docs", "model": "acme/toolsmith-12b"])?["result"])
        let id = try #require(sent["conversationId"])
        let messages = await rpc.call("conversations/get", ["id": id])?["result"]?["messages"]?.array ?? []
        let reply = try #require(messages.last)
        let text = try #require(reply["text"]?.string)
        let calls = reply["toolCalls"]?.array ?? []
        #expect(calls.map { $0["name"] } == ["search_docs", "open_browser"])
        #expect(calls.first?["answerOffset"] == 0, "search_docs came before any text")
        let preamble = "Let me look that up in the docs first.\n\n"
        #expect(text.hasPrefix(preamble))
        #expect(calls.last?["answerOffset"] == .number(Double(preamble.utf8.count)), "open_browser came after the preamble")
        #expect(calls.first?["reasoningOffset"] == .number(Double(reply["reasoning"]?.string?.utf8.count ?? -1)))
    }
}
