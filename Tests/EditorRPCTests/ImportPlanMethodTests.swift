import EditorRPC
import Foundation
import LMStudio
import Library
import Simulator
import TestSupport
import Testing

/// `transfer/plan` and `transfer/import` follow the engine's import plan (`ImportPlan`), as `llmster import` and
/// `/import` do.
@Suite struct ImportPlanMethodTests {
    private func answered(_ fixture: SimulatorFixture) async throws -> (RPCHarness, JSONValue) {
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let sent = try #require(await rpc.call("chat/send", ["text": "echo:the lighthouse keeper"])?["result"])
        return (rpc, try #require(sent["conversationId"]))
    }

    @Test func thePlanSaysWhatTheFileCarriesAndAsksForAContinuationWithoutAServer() async throws {
        let fixture = try SimulatorFixture()
        let (source, id) = try await answered(fixture)
        let path = source.sandbox.root + "/serverless.llmster"
        let library = try LibraryStore(path: source.sandbox.libraryPath)
        let conversationId = try #require(id.string)
        let conversation = try #require(try library.conversation(id: conversationId))
        try library.setContinuation(
            conversationId: conversation.id, serverURL: nil, responseId: conversation.lastResponseId)
        #expect(await source.call("transfer/export", ["conversationId": id, "path": .string(path)])?["result"] != nil)

        let target = try RPCHarness(serverURL: fixture.url)
        await target.initialize()
        let plan = try #require(await target.call("transfer/plan", ["path": .string(path)])?["result"])
        #expect(plan["mustAsk"] == true)
        #expect(plan["fileServer"] == .null)
        #expect(plan["carries"]?["messages"] == 2)
        #expect(plan["carries"]?["continuation"] == true)
        #expect(plan["question"]?.string?.contains("does not say which server") == true, "\(plan)")
        #expect(plan["answers"]?["drop"]?.string?.contains("fresh server context") == true, "\(plan)")
        let asked = try #require(await target.call("transfer/import", ["path": .string(path)]))
        #expect(asked.errorKind == "confirmation_required", "the same server, but the file does not say so: \(asked)")
        #expect(asked["error"]?["data"]?["category"] == "confirmation")
        #expect(asked["error"]?["data"]?["mustAsk"] == true)
        let dropped = try #require(
            await target.call("transfer/import", ["path": .string(path), "continuation": "drop"])?["result"])
        #expect(dropped["continuationKept"] == false)
        await source.closeInput()
        await target.closeInput()
    }
}
