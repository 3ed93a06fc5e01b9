import EditorRPC
import Foundation
import LMStudio
import TestSupport
import Testing

@Suite struct ToolCallOrderTests {
    /// The simulator and a harness that has answered a reply with reasoning, search_docs, text, open_browser and
    /// text; the conversation's id and its messages as `conversations/get` gives them.
    private func toolsReply() async throws -> (SimulatorFixture, RPCHarness, JSONValue, [JSONValue]) {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let sent = try #require(
            await rpc.call("chat/send", ["text": "[[sim:tools]] find docs", "model": "acme/toolsmith-12b"])?["result"])
        let id = try #require(sent["conversationId"])
        return (fixture, rpc, id, await rpc.call("conversations/get", ["id": id])?["result"]?["messages"]?.array ?? [])
    }

    @Test func conversationsGetSaysWhereEachToolCallCameInTheReply() async throws {
        let (_, _, _, messages) = try await toolsReply()
        let reply = try #require(messages.last)
        let text = try #require(reply["text"]?.string)
        let calls = reply["toolCalls"]?.array ?? []
        #expect(calls.map { $0["name"] } == ["search_docs", "open_browser"])
        #expect(calls.first?["answerOffset"] == 0, "search_docs came before any text")
        let preamble = "Let me look that up in the docs first.\n\n"
        #expect(text.hasPrefix(preamble))
        #expect(
            calls.last?["answerOffset"] == .number(Double(preamble.utf8.count)), "open_browser came after the preamble")
        #expect(calls.first?["reasoningOffset"] == .number(Double(reply["reasoning"]?.string?.utf8.count ?? -1)))
    }

    /// An editor renders a saved reply from `parts`, the library's order, instead of re-cutting texts at offsets.
    @Test func conversationsGetGivesAReplysPartsInTheServersOrderAndItsReasoningTime() async throws {
        let (fixture, rpc, id, messages) = try await toolsReply()
        defer { withExtendedLifetime(fixture) {} }
        let reply = try #require(messages.last)
        let parts = reply["parts"]?.array ?? []
        #expect(parts.map { $0["kind"] } == ["reasoning", "tool", "text", "tool", "text"], "\(parts)")
        #expect(parts.first?["text"] == reply["reasoning"], "one reasoning part: all of it")
        #expect(parts.compactMap { $0["index"] } == [0, 1], "each tool part points into toolCalls")
        #expect(
            parts[2]["text"]?.string?.hasPrefix("Let me look that up in the docs first.") == true,
            "the text between the calls")
        #expect(parts[4]["text"]?.string?.hasPrefix("You said:") == true)
        #expect(messages.first?["parts"] == nil, "only a reply has parts")

        guard case .number(let tokens)? = reply["stats"]?["reasoning_output_tokens"],
            case .number(let rate)? = reply["stats"]?["tokens_per_second"]
        else {
            Issue.record("the simulator's stats have reasoning tokens and a speed: \(reply)")
            return
        }
        #expect(reply["reasoningSeconds"] == .number(tokens / rate), "the saved reasoning tokens at the reply's speed")
        #expect(parts.first?["seconds"] == .number(tokens / rate), "the one reasoning part is labelled with it")
        let plain = try #require(
            await rpc.call("chat/send", ["conversationId": id, "text": "echo:hi"])?["result"]?["message"])
        #expect(plain["reasoningSeconds"] == .null, "no reasoning, no time")
        #expect(plain["parts"] == [.object(["kind": "text", "text": "hi"])], "\(plain)")
        await rpc.closeInput()
    }
}
