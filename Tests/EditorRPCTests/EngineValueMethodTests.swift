import Chat
import EditorRPC
import Foundation
import LMStudio
import Simulator
import SystemSupport
import TestSupport
import Testing

/// The values the engine decides and rpc carries ready to show, so the editors print them rather than compute them:
/// `displayTitle`, `contextMeter`, `reasoningLabel`, and the `category` of every error.
@Suite struct EngineValueMethodTests {
    @Test func aConversationWithoutATitleIsShownAsUntitledWhereverRpcReturnsIt() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let created = try #require(await rpc.call("conversations/create", [:])?["result"])
        let id = try #require(created["id"])
        #expect(created["title"] == "")
        #expect(created["displayTitle"] == "Untitled")
        let listed = await rpc.call("conversations/list")?["result"]?["conversations"]?.array ?? []
        #expect(listed.first { $0["id"] == id }?["displayTitle"] == "Untitled")
        #expect(
            await rpc.call("conversations/get", ["id": id])?["result"]?["conversation"]?["displayTitle"] == "Untitled")
        let renamed = await rpc.call("conversations/rename", ["id": id, "title": "Trip plans"])?["result"]
        #expect(renamed?["displayTitle"] == "Trip plans")
        await rpc.closeInput()
    }

    /// A reply's code blocks as the renderer and `/copy code N` find them (a tilde fence, one with a longer fence
    /// holding backticks, indented code), so an editor's rewrite takes the same block without a fence rule of its own.
    @Test func aReplyCarriesItsCodeBlocksAsTheRendererFindsThem() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let answer = "Try:\n\n~~~ python\nx = 1\n~~~\n\n````md\n```\ninner\n```\n````\n\n    indented\n"
        let sent = try #require(
            await rpc.call("chat/send", ["text": .string("echo:" + answer), "model": "acme/tiny-1b"])?["result"])
        #expect(sent["message"]?["codeBlocks"] == .array(["x = 1", "```\ninner\n```", "indented"]), "\(sent)")
        await rpc.closeInput()
    }

    @Test func sendAndGetCarryTheContextMeterThePromptShows() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let sent = try #require(
            await rpc.call("chat/send", ["text": "echo:a short answer", "model": "acme/tiny-1b"])?["result"])
        let meter = try #require(sent["contextMeter"])
        let stats = try #require(sent["message"]?["stats"])
        let used = try #require(stats["input_tokens"]?.int).saturatingAdd(
            try #require(stats["total_output_tokens"]?.int))
        #expect(meter["used"]?.int == used)
        #expect(meter["limit"] == 4096, "the loaded instance's context length, not the model's maximum (32k)")
        #expect(meter["ratio"] == .number(Double(used) / 4096))
        #expect(
            meter["label"]?.string == ContextMeter(usedTokens: used, contextLength: 4096).label(), "the REPL's figure")
        #expect(meter["label"]?.string?.hasPrefix("ctx \(used)/4k ") == true, "8k-style, one number format: \(meter)")
        let got = await rpc.call("conversations/get", ["id": try #require(sent["conversationId"])])?["result"]
        #expect(got?["contextMeter"] == meter)
        await rpc.closeInput()
    }

    @Test func aModelTheSendLoadedJustInTimeGivesTheMeterItsInstancesContext() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        _ = await rpc.call("models/list")
        let sent = try #require(
            await rpc.call("chat/send", ["text": "echo:hello", "model": "acme/thinker-8b"])?["result"])
        let models = await rpc.call("models/list")?["result"]?["models"]?.array ?? []
        let instance = try #require(models.first { $0["key"] == "acme/thinker-8b" }?["loaded_instances"]?.array.first)
        #expect(
            sent["contextMeter"]?["limit"] == instance["config"]?["context_length"],
            "\(sent["contextMeter"] ?? .null) vs \(instance)")
        await rpc.closeInput()
    }

    @Test func aNewConversationOnAnUnknownContextHasNoRatio() async throws {
        let fixture = try SimulatorFixture(SimulatorOptions(loadedAtStart: [:]))
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let id = try #require(await rpc.call("conversations/create", ["model": "nobody/unknown"])?["result"]?["id"])
        let meter = try #require(await rpc.call("conversations/get", ["id": id])?["result"]?["contextMeter"])
        #expect(
            meter == JSONValue.object(["used": 0, "limit": JSONValue.null, "ratio": JSONValue.null, "label": "ctx 0/?"])
        )
        await rpc.closeInput()
    }

    @Test func theReasoningEndAndTheSavedReplyCarryTheLabelTheReplShows() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize(["coalesceMilliseconds": 0])
        let id = await rpc.request("chat/send", ["text": "[[sim:reasoning]] echo:done"])
        let (response, events) = await rpc.response(to: id)
        let end = try #require(events.compactMap { $0["params"] }.first { $0["type"] == "reasoning.end" })
        guard case .number(let seconds)? = end["seconds"] else {
            Issue.record("reasoning.end carries seconds: \(end)")
            return
        }
        #expect(end["reasoningLabel"]?.string == Figures.reasoningLabel(seconds: seconds))
        #expect(end["reasoningLabel"]?.string?.hasPrefix("Thought for ") == true)
        let message = try #require(response?["result"]?["message"])
        let part = try #require(message["parts"]?.array.first { $0["kind"] == "reasoning" })
        #expect(part["reasoningLabel"]?.string?.hasPrefix("Thought for ") == true, "\(part)")
        #expect(message["reasoningLabel"]?.string?.hasPrefix("Thought for ") == true, "\(message)")
        let plain = try #require(await rpc.call("chat/send", ["text": "echo:no thinking"])?["result"]?["message"])
        #expect(plain["reasoningLabel"] == .null, "a reply without reasoning has no label")
        await rpc.closeInput()
    }

    @Test func theLabelIsOneFormatClampedAndGrouped() {
        #expect(Figures.reasoningLabel(seconds: 1020) == "Thought for 1,020.0 s")
        #expect(Figures.reasoningLabel(seconds: -3) == "Thought for 0.0 s")
        #expect(Figures.reasoningLabel(seconds: .nan) == "Thought for 0.0 s")
        #expect(Figures.reasoningLabel(seconds: 12.44) == "Thought for 12.4 s")
        #expect(Figures.reasoningLabel(seconds: nil) == "Reasoning")
    }

    @Test func everyErrorCarriesTheEnginesCategory() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        let early = try #require(await rpc.call("folders/list"))
        #expect(early["error"]?["data"]?["category"] == "invalid", "\(early)")
        await rpc.initialize()
        let cases: [(String, [String: JSONValue], kind: String, category: String)] = [
            ("chat/send", ["text": "hi", "model": "nobody/nothing"], "model_not_found", "model_not_found"),
            ("chat/send", ["text": "hi", "conversationId": "nope"], "not_found", "not_found"),
            ("chat/send", [:], "invalid_params", "invalid"),
            ("no/such", [:], "method_not_found", "invalid"),
            ("models/unload", ["instanceId": "nobody/nothing"], "not_found", "not_found")
        ]
        for (method, params, kind, category) in cases {
            let answer = try #require(await rpc.call(method, params))
            #expect(answer.errorKind == kind, "\(method) \(params): \(answer)")
            #expect(answer["error"]?["data"]?["category"]?.string == category, "\(method) \(params): \(answer)")
        }
        let created = try #require(await rpc.call("conversations/create", [:])?["result"]?["id"])
        let noReply = try #require(await rpc.call("conversations/fork", ["conversationId": created, "atReply": 3]))
        #expect(
            noReply.errorKind == "not_found", "no such reply is not found, as on the command line (exit 5): \(noReply)")
        #expect(noReply["error"]?["data"]?["category"] == "not_found")
        await rpc.closeInput()

        let down = try RPCHarness(serverURL: "http://127.0.0.1:\(unusedPort())")
        await down.initialize()
        let unreachable = try #require(await down.call("models/list"))
        #expect(unreachable["error"]?["data"]?["category"] == "unreachable")
        #expect(unreachable.errorKind == "server_unreachable")
        await down.closeInput()
    }

    @Test func aContextOverflowIsOneCategoryWhetherTheCodeOrTheWordingSaysIt() {
        let coded = APIErrorPayload(
            type: "invalid_request", message: "prompt rejected", code: "context_length_exceeded")
        let worded = APIErrorPayload(message: "The context length was exceeded")
        #expect(ReplyErrorKind(coded) == .contextOverflow)
        #expect(ReplyErrorKind(worded) == .contextOverflow)
        #expect(ReplyErrorKind(APIErrorPayload(message: "model crashed")) == .serverError)
        let refused = LMStudioError.invalidRequest(
            message: "prompt rejected", param: nil, code: "context_length_exceeded")
        #expect(ChatError.server(refused).category == .contextOverflow)
        #expect(
            LMStudioError.describe(streamError: worded).contains("--context-length"), "the remedy follows the same rule"
        )
    }
}
