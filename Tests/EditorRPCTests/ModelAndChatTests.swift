import EditorRPC
import Foundation
import LMStudio
import Library
import Simulator
import TestSupport
import Testing

@Suite struct ModelAndChatTests {
    @Test func modelsListLoadAndUnload() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let models = await rpc.call("models/list")?["result"]?["models"]?.array ?? []
        let tiny = try #require(models.first { $0["key"] == "acme/tiny-1b" })
        #expect(tiny["loaded"] == true)
        let other = try #require(models.first { $0["loaded"] == false && $0["type"] == "llm" }?["key"])
        let loaded = try #require(await rpc.call("models/load", ["model": other])?["result"])
        let instance = try #require(loaded["instance_id"])
        let after = await rpc.call("models/list")?["result"]?["models"]?.array ?? []
        #expect(after.first { $0["key"] == other }?["loaded"] == true)
        #expect(await rpc.call("models/unload", ["instanceId": instance])?["result"]?["instanceId"] == instance)
        #expect(await rpc.call("models/load", ["model": "nobody/nothing"])?.errorKind == "model_not_found")
        #expect(await rpc.call("models/unload", ["instanceId": "nobody/nothing"])?.errorKind == "not_found")
        #expect(await rpc.call("models/load", [:])?.errorKind == "invalid_params")
        await rpc.closeInput()
    }

    @Test func sendStreamsNumberedEventsAndAnswersWithTheSavedReply() async throws {
        let fixture = try SimulatorFixture(SimulatorOptions(tokenDelay: 0.001))
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize(["coalesceMilliseconds": 0])
        let id = await rpc.request("chat/send", ["text": "[[sim:tools]] echo:hello there"])
        let (response, events) = await rpc.response(to: id)
        let result = try #require(response?["result"])
        #expect(result["status"] == "complete")
        let message = try #require(result["message"])
        #expect(message["status"] == "complete")
        #expect(message["stats"]?["total_output_tokens"] != nil, "\(message)")
        let params = events.compactMap { $0["params"] }
        #expect(events.allSatisfy { $0["method"] == "chat/event" })
        #expect(params.map { $0["seq"]?.int } == Array(0..<params.count).map(Optional.some))
        for event in params {
            #expect(event["requestId"] == id)
            #expect(event["messageId"] == message["id"])
            #expect(event["conversationId"] == result["conversationId"])
        }
        let types = params.compactMap { $0["type"]?.string }
        #expect(types.contains("reasoning.delta"))
        #expect(types.contains("tool_call.start"))
        #expect(types.contains("tool_call.success"))
        #expect(types.contains("tool_call.failure"))
        let answer = params.filter { $0["type"] == "message.delta" }.compactMap { $0["text"]?.string }.joined()
        #expect(answer == message["text"]?.string)
        let reasoning = params.filter { $0["type"] == "reasoning.delta" }.compactMap { $0["text"]?.string }.joined()
        #expect(reasoning == message["reasoning"]?.string)
        await rpc.closeInput()
    }

    @Test func aServerErrorEventEndsTheReplyWithStatusError() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let id = await rpc.request("chat/send", ["text": "[[sim:error]] hi"])
        let (response, events) = await rpc.response(to: id)
        #expect(response?["result"]?["status"] == "error")
        #expect(response?["result"]?["errorKind"] == "server_error")
        #expect(events.contains { $0["params"]?["type"] == "error" })
        await rpc.closeInput()
    }

    @Test func sendErrorsHaveStableKinds() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        #expect(await rpc.call("chat/send", ["text": "hi", "model": "nobody/nothing"])?.errorKind == "model_not_found")
        #expect(await rpc.call("chat/send", ["text": "hi", "conversationId": "nope"])?.errorKind == "not_found")
        #expect(await rpc.call("chat/send", [:])?.errorKind == "invalid_params")
        let created = try #require(await rpc.call("conversations/create", [:])?["result"]?["id"])
        #expect(await rpc.call("chat/send", ["conversationId": created, "retry": true])?.errorKind == "invalid_params")
        await rpc.closeInput()
    }

    @Test func cancelMidStreamAnswersWithThePartialReplySavedIncomplete() async throws {
        let fixture = try SimulatorFixture(SimulatorOptions(tokenDelay: 0.001))
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize(["coalesceMilliseconds": 0])
        let id = await rpc.request("chat/send", ["text": "[[sim:stall=30]] echo:one two three four five six"])
        #expect(await rpc.waitForAnswerText())
        await rpc.notify("$/cancelRequest", ["id": id])
        let result = try #require(await rpc.response(to: id).response?["result"])
        #expect(result["status"] == "incomplete")
        #expect(result["cancelled"] == true)
        let text = try #require(result["message"]?["text"]?.string)
        #expect(!text.isEmpty)
        let conversation = try #require(result["conversationId"])
        let saved = await rpc.call("conversations/get", ["id": conversation])?["result"]?["messages"]?.array.last
        #expect(saved?["status"] == "incomplete")
        #expect(saved?["text"]?.string == text)
        await rpc.closeInput()
    }

    /// A cancel while the server processes the prompt answers with what it does not stop: LM Studio finishes the prompt.
    @Test func cancelDuringPromptProcessingSaysTheServerFinishesThePrompt() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize(["coalesceMilliseconds": 0])
        let id = await rpc.request("chat/send", ["text": "[[sim:prefill=90]] echo:a long prompt"])
        while let message = await rpc.next(), message["params"]?["type"] != "prompt_processing.progress" {}
        await rpc.notify("$/cancelRequest", ["id": id])
        let result = try #require(await rpc.response(to: id).response?["result"])
        #expect(result["cancelled"] == true)
        #expect(result["stopNotice"]?.string?.contains("LM Studio finishes processing it") == true, "\(result)")
        await rpc.closeInput()
    }

    @Test func endOfInputMidStreamCancelsSavesAndAnswers() async throws {
        let fixture = try SimulatorFixture(SimulatorOptions(tokenDelay: 0.001))
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize(["coalesceMilliseconds": 0])
        let id = await rpc.request("chat/send", ["text": "[[sim:stall=30]] echo:one two three four five six"])
        #expect(await rpc.waitForAnswerText())
        await rpc.closeInput()
        let result = try #require(await rpc.response(to: id).response?["result"])
        #expect(result["status"] == "incomplete")
        let library = try LibraryStore(path: rpc.sandbox.libraryPath)
        let conversation = try #require(result["conversationId"]?.string)
        let reply = try #require(try library.messages(conversationId: conversation).last)
        #expect(reply.status == MessageStatus.incomplete)
        #expect(!reply.text.isEmpty)
    }
}
