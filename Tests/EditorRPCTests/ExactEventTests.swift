import EditorRPC
import Foundation
import LMStudio
import Simulator
import TestSupport
import Testing

/// `chat/event` text is exact: deltas add up to the saved text, and a rewritten answer arrives whole.
@Suite struct ExactEventTests {
    private func texts(_ params: [JSONValue], _ type: String) -> [String] {
        params.filter { $0["type"]?.string == type }.compactMap { $0["text"]?.string }
    }

    @Test func reasoningDeltasOfA24KiBReasoningAddUpToTheSavedReasoning() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        // The deltas arrive far faster than the interval, so most of them are merged.
        await rpc.initialize(["coalesceMilliseconds": 50])
        let id = await rpc.request("chat/send", ["text": "[[sim:reasoning large-reasoning=24576]] echo:done"])
        let (response, events) = await rpc.response(to: id)
        let message = try #require(response?["result"]?["message"])
        let saved = try #require(message["reasoning"]?.string)
        #expect(saved.utf8.count >= 24 * 1024)
        let params = events.compactMap { $0["params"] }
        let deltas = texts(params, "reasoning.delta")
        #expect(deltas.joined() == saved)
        #expect(texts(params, "message.delta").joined() == message["text"]?.string)
        // The engine's reasoning time comes once the reasoning is whole, before the answer.
        let types = params.compactMap { $0["type"]?.string }
        let end = try #require(types.firstIndex(of: "reasoning.end"), "\(types)")
        #expect(types.lastIndex(of: "reasoning.delta").map { $0 < end } == true)
        #expect(types.firstIndex(of: "message.delta").map { $0 > end } == true)
        guard case .number(let seconds)? = params[end]["seconds"] else {
            Issue.record("reasoning.end carries seconds: \(params[end])")
            return
        }
        #expect(seconds >= 0)
        await rpc.closeInput()
    }

    @Test func anAnswerRewrittenByChatEndArrivesAsDeltasThenTheWholeFinalText() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize(["coalesceMilliseconds": 0])
        let id = await rpc.request("chat/send", ["text": "[[sim:rewrite]] echo:first draft of the answer"])
        let (response, events) = await rpc.response(to: id)
        let message = try #require(response?["result"]?["message"])
        #expect(message["text"] == "Revised: first draft of the answer")
        let params = events.compactMap { $0["params"] }
        let types = params.compactMap { $0["type"]?.string }.filter { $0.hasPrefix("message.") }
        #expect(types.last == "message.replace")
        #expect(types.dropLast().allSatisfy { $0 == "message.delta" } && types.count > 1)
        #expect(texts(params, "message.delta").joined() == "first draft of the answer")
        // An editor that appends the deltas and then replaces holds exactly the saved message.
        var shown = ""
        for event in params {
            switch event["type"]?.string {
            case "message.delta": shown += event["text"]?.string ?? ""
            case "message.replace": shown = event["text"]?.string ?? ""
            default: break
            }
        }
        #expect(shown == message["text"]?.string)
        await rpc.closeInput()
    }
}
