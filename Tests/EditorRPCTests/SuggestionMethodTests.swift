import EditorRPC
import Foundation
import LMStudio
import Simulator
import TestSupport
import Testing

/// What an editor hears for a preset on a new conversation, an unknown conversation (from every method that names
/// one) and an unknown model: the engine's rules, with the candidates and the suggestion in the error data.
@Suite struct SuggestionMethodTests {
    @Test func createWithAPresetKeepsTheExplicitPromptAndModel() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(
            serverURL: fixture.url,
            settings: [
                ("preset.reviewer.system", "You review diffs tersely."), ("preset.reviewer.model", "acme/thinker-8b"),
                ("preset.reviewer.temperature", "0.2")
            ])
        await rpc.initialize()
        let created = try #require(
            await rpc.call(
                "conversations/create",
                [
                    "preset": "reviewer", "systemPrompt": "Be kind.", "model": "acme/tiny-1b"
                ])?["result"])
        #expect(created["systemPrompt"] == "Be kind.", "\(created)")
        #expect(created["modelKey"] == "acme/tiny-1b", "\(created)")
        #expect(created["settings"]?["temperature"] == .number(0.2), "\(created)")
        await rpc.closeInput()
    }

    @Test func anUnknownConversationAnswersNotFoundWithTheClosestTitles() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let id = try #require(await rpc.call("conversations/create", ["title": "Explain SSE"])?["result"]?["id"])
        let answer = try #require(await rpc.call("chat/send", ["conversationId": "Explain SEE", "text": "echo:hi"]))
        #expect(answer.errorKind == "not_found", "\(answer)")
        let candidates = answer["error"]?["data"]?["candidates"]?.array ?? []
        #expect(candidates.first?["id"] == id, "\(answer)")
        #expect(candidates.first?["title"] == "Explain SSE")
        #expect(fixture.requests(to: "/api/v1/chat").isEmpty, "nothing is sent")
        await rpc.closeInput()
    }

    @Test func getWithAnUnknownTitleAnswersNotFoundWithTheClosestTitles() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let id = try #require(
            await rpc.call("conversations/create", ["title": "Quarterly zeppelin report"])?["result"]?["id"])
        _ = await rpc.call("conversations/create", ["title": "Unrelated"])
        let answer = try #require(await rpc.call("conversations/get", ["id": "Quarterly zepelin report"]))
        #expect(answer.errorKind == "not_found", "\(answer)")
        let candidates = answer["error"]?["data"]?["candidates"]?.array ?? []
        #expect(candidates.map { $0["id"] } == [id], "\(answer)")
        #expect(candidates.first?["title"] == "Quarterly zeppelin report")
        #expect(answer["error"]?["message"]?.string?.contains("Quarterly zeppelin report") == true, "\(answer)")
        await rpc.closeInput()
    }

    @Test func applyingAPresetToAnUnknownTitleAnswersNotFoundWithTheClosestTitlesAndChangesNothing() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url, settings: [("preset.reviewer.temperature", "0.2")])
        await rpc.initialize()
        let id = try #require(await rpc.call("conversations/create", ["title": "Review the parser"])?["result"]?["id"])
        let before = await rpc.call("conversations/get", ["id": id])?["result"]
        let answer = try #require(
            await rpc.call("presets/apply", ["conversationId": "review the parsre", "name": "reviewer"]))
        #expect(answer.errorKind == "not_found", "\(answer)")
        let candidates = answer["error"]?["data"]?["candidates"]?.array ?? []
        #expect(candidates.map { $0["id"] } == [id], "\(answer)")
        #expect(candidates.first?["title"] == "Review the parser")
        #expect(await rpc.call("conversations/get", ["id": id])?["result"] == before, "nothing was changed")
        let applied = await rpc.call("presets/apply", ["conversationId": "review the parser", "name": "reviewer"])?[
            "result"]
        #expect(applied?["id"] == id, "an exact title (any case) names the conversation")
        #expect(applied?["settings"]?["temperature"] == .number(0.2))
        await rpc.closeInput()
    }

    /// Every method that names a conversation resolves it as `chat/send` does: a near miss lists the closest titles,
    /// a title shared by two conversations lists both, and nothing is changed or sent either way.
    @Test func everyMethodNamingAConversationAnswersWithCandidates() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url, settings: [("preset.reviewer.temperature", "0.2")])
        await rpc.initialize()
        let id = try #require(await rpc.call("conversations/create", ["title": "Explain SSE"])?["result"]?["id"])
        let first = try #require(await rpc.call("conversations/create", ["title": "Twins"])?["result"]?["id"])
        let second = try #require(await rpc.call("conversations/create", ["title": "twins"])?["result"]?["id"])
        let path = rpc.sandbox.root + "/never.llmster"
        let before = await rpc.call("conversations/list")?["result"]
        let calls: [(String, [String: JSONValue], String)] = [
            ("conversations/get", [:], "id"), ("conversations/rename", ["title": "x"], "id"),
            ("conversations/move", ["folderId": .null], "id"), ("conversations/pin", [:], "id"),
            ("conversations/unpin", [:], "id"), ("conversations/delete", [:], "id"),
            ("drafts/get", [:], "conversationId"), ("drafts/set", ["text": "t"], "conversationId"),
            ("conversations/setSettings", ["settings": .object(["temperature": .number(0.5)])], "conversationId"),
            ("conversations/setIntegrations", ["integrations": []], "conversationId"),
            ("conversations/alternatives", [:], "conversationId"),
            ("presets/apply", ["name": "reviewer"], "conversationId"),
            ("models/select", ["model": "acme/tiny-1b"], "conversationId"),
            ("transfer/export", ["path": .string(path)], "conversationId"),
            ("chat/send", ["text": "echo:hi"], "conversationId")
        ]
        for (method, params, key) in calls {
            let near = try #require(await rpc.call(method, params.merging([key: "Explain SEE"]) { $1 }))
            #expect(near.errorKind == "not_found", "\(method): \(near)")
            #expect(near["error"]?["data"]?["candidates"]?.array.map { $0["id"] } == [id], "\(method): \(near)")
            let shared = try #require(await rpc.call(method, params.merging([key: "TWINS"]) { $1 }))
            #expect(shared.errorKind == "not_found", "\(method): \(shared)")
            #expect(
                Set(shared["error"]?["data"]?["candidates"]?.array.compactMap { $0["id"] } ?? []) == [first, second],
                "\(method): \(shared)")
        }
        #expect(
            await rpc.call("conversations/list")?["result"] == before, "nothing was renamed, pinned, set or deleted")
        #expect(!FileManager.default.fileExists(atPath: path), "nothing was exported")
        #expect(fixture.requests(to: "/api/v1/chat").isEmpty, "nothing was sent")
        #expect(fixture.requests(to: "/api/v1/models/load").isEmpty, "nothing was loaded")
        await rpc.closeInput()
    }

    @Test func methodsThatTookOnlyIdsTakeATitle() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let id = try #require(await rpc.call("conversations/create", ["title": "Garden plans"])?["result"]?["id"])
        #expect(
            await rpc.call("drafts/set", ["conversationId": "garden plans", "text": "tomatoes"])?["result"]?[
                "conversationId"] == id)
        #expect(await rpc.call("drafts/get", ["conversationId": "Garden Plans"])?["result"]?["text"] == "tomatoes")
        #expect(await rpc.call("conversations/pin", ["id": "Garden plans"])?["result"]?["pinned"] == true)
        #expect(
            await rpc.call("conversations/rename", ["id": "Garden plans", "title": "Allotment"])?["result"]?["title"]
                == "Allotment")
        #expect(await rpc.call("conversations/delete", ["id": "allotment"])?["result"]?["id"] == id)
        #expect(await rpc.call("conversations/list")?["result"]?["conversations"]?.array.isEmpty == true)
        await rpc.closeInput()
    }

    @Test func anUnknownModelAnswersWithTheNearestKey() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let id = try #require(await rpc.call("conversations/create")?["result"]?["id"])
        let select = try #require(await rpc.call("models/select", ["conversationId": id, "model": "acme/thinekr-8b"]))
        #expect(select.errorKind == "model_not_found", "\(select)")
        #expect(select["error"]?["data"]?["suggestion"] == "acme/thinker-8b", "\(select)")
        #expect(select["error"]?["message"]?.string?.contains("did you mean acme/thinker-8b?") == true, "\(select)")
        let load = try #require(await rpc.call("models/load", ["model": "acme/tiny-b1"]))
        #expect(load["error"]?["data"]?["suggestion"] == "acme/tiny-1b", "\(load)")
        let far = try #require(await rpc.call("models/select", ["conversationId": id, "model": "zzz/nothing-alike"]))
        #expect(far["error"]?["data"]?["suggestion"] == .null, "\(far)")
        await rpc.closeInput()
    }
}
