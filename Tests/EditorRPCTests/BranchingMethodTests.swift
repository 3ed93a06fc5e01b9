import EditorRPC
import Foundation
import LMStudio
import Simulator
import TestSupport
import Testing

/// `chat/send` with `retry` or `edit`, `conversations/alternatives`, `conversations/chooseAlternative`,
/// fresh-context recovery and failed first sends.
@Suite struct BranchingMethodTests {
    /// A conversation "echo:one" → "one", "echo:two" → "two"; returns its id and the second reply's message id.
    private func twoTurns(_ rpc: RPCHarness) async throws -> (conversation: JSONValue, second: JSONValue) {
        let first = try #require(await rpc.call("chat/send", ["text": "echo:one"])?["result"])
        let conversation = try #require(first["conversationId"])
        let second = try #require(
            await rpc.call("chat/send", ["conversationId": conversation, "text": "echo:two"])?["result"])
        return (conversation, try #require(second["message"]?["id"]))
    }

    @Test func retryRegeneratesAndTheReplacedAnswerIsAnAlternative() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let (conversation, second) = try await twoTurns(rpc)
        let retried = try #require(
            await rpc.call("chat/send", ["conversationId": conversation, "retry": true])?["result"])
        #expect(retried["status"] == "complete")
        let chats = fixture.requests(to: "/api/v1/chat")
        #expect(chats[2].field("input") == "echo:two")
        #expect(chats[2].field("previous_response_id") == chats[1].field("previous_response_id"))

        let messages = await rpc.call("conversations/get", ["id": conversation])?["result"]?["messages"]?.array ?? []
        #expect(messages.compactMap { $0["text"]?.string } == ["echo:one", "one", "echo:two", "two"])
        let listed = try #require(
            await rpc.call("conversations/alternatives", ["conversationId": conversation])?["result"])
        #expect(
            listed["alternatives"]?.array.compactMap { $0["id"] }
                == [second, retried["message"]?["id"]].compactMap { $0 })
        #expect(listed["current"] == 1)

        let chosen = try #require(await rpc.call("conversations/chooseAlternative", ["messageId": second])?["result"])
        #expect(chosen["messages"]?.array.last?["id"] == second)
        let after = await rpc.call("conversations/alternatives", ["conversationId": conversation])?["result"]
        #expect(after?["current"] == 0)
        #expect(await rpc.call("conversations/chooseAlternative", ["messageId": "nope"])?.errorKind == "not_found")
        await rpc.closeInput()
    }

    @Test func editResendsTheChangedLastMessage() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let (conversation, _) = try await twoTurns(rpc)
        let edited = try #require(
            await rpc.call("chat/send", ["conversationId": conversation, "edit": true, "text": "echo:deux"])?["result"])
        #expect(edited["message"]?["text"] == "deux")
        let chats = fixture.requests(to: "/api/v1/chat")
        #expect(chats.last?.field("input") == "echo:deux")
        #expect(chats.last?.field("previous_response_id") == chats[1].field("previous_response_id"))
        let messages = await rpc.call("conversations/get", ["id": conversation])?["result"]?["messages"]?.array ?? []
        let turn = try #require(messages.dropLast().last?["id"])
        let versions = await rpc.call(
            "conversations/alternatives", ["conversationId": conversation, "messageId": turn])?["result"]
        #expect(versions?["alternatives"]?.array.compactMap { $0["text"]?.string } == ["echo:two", "echo:deux"])
        await rpc.closeInput()
    }

    @Test func freshContextRecoversRetryAfterTheServerRestarted() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let (conversation, _) = try await twoTurns(rpc)
        fixture.simulator.reset()
        #expect(
            await rpc.call("chat/send", ["conversationId": conversation, "retry": true])?.errorKind
                == "continuation_lost")
        let recovered = try #require(
            await rpc.call("chat/send", ["conversationId": conversation, "retry": true, "freshContext": true])?[
                "result"])
        #expect(recovered["status"] == "complete")
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("previous_response_id") == nil)
        let listed = await rpc.call("conversations/alternatives", ["conversationId": conversation])?["result"]
        #expect(listed?["alternatives"]?.array.count == 2)
        await rpc.closeInput()
    }

    @Test func aFirstSendThatFailsCreatesNoConversation() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        #expect(await rpc.call("chat/send", ["text": "[[sim:status=500]] hi"])?["error"] != nil)
        #expect(await rpc.call("chat/send", ["text": "hi", "model": "nobody/nothing"])?.errorKind == "model_not_found")
        #expect(await rpc.call("conversations/list")?["result"]?["conversations"]?.array.isEmpty == true)
        await rpc.closeInput()
    }

    @Test func aConversationCreatedOnPurposeOutlivesAFailedFirstSend() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let id = try #require(await rpc.call("conversations/create", [:])?["result"]?["id"]?.string)
        #expect(
            await rpc.call("chat/send", ["conversationId": .string(id), "text": "[[sim:status=500]] hi"])?["error"]
                != nil)
        #expect(await rpc.call("conversations/list")?["result"]?["conversations"]?.array.count == 1)
        await rpc.closeInput()
    }
}
