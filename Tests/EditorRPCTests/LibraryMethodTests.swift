import EditorRPC
import Foundation
import LMStudio
import TestSupport
import Testing

@Suite struct LibraryMethodTests {
    @Test func foldersConversationsPinsDraftsAndSearch() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let work = try #require(await rpc.call("folders/create", ["name": "Work"])?["result"])
        let workId = try #require(work["id"])
        #expect(work["path"] == "Work")
        let sub = try #require(await rpc.call("folders/create", ["name": "Research", "parentId": workId])?["result"])
        #expect(sub["path"] == "Work/Research")
        #expect(await rpc.call("folders/rename", ["id": workId, "name": "Job"])?["result"]?["name"] == "Job")
        #expect(
            await rpc.call("folders/list")?["result"]?["folders"]?.array.compactMap { $0["path"]?.string }.sorted()
                == ["Job", "Job/Research"])

        let created = try #require(
            await rpc.call("conversations/create", ["title": "Plans", "model": "acme/tiny-1b"])?["result"])
        let id = try #require(created["id"])
        #expect(created["modelKey"] == "acme/tiny-1b")
        let other = try #require(await rpc.call("conversations/create", ["title": "Other"])?["result"]?["id"])
        #expect(
            await rpc.call("conversations/rename", ["id": id, "title": "Big plans"])?["result"]?["title"] == "Big plans"
        )
        let moved = await rpc.call("conversations/move", ["id": id, "folderId": workId])?["result"]
        #expect(moved?["folderPath"] == "Job")
        #expect(await rpc.call("conversations/pin", ["id": other])?["result"]?["pinned"] == true)
        let list = await rpc.call("conversations/list")?["result"]?["conversations"]?.array ?? []
        #expect(list.map { $0["title"] } == ["Other", "Big plans"], "pinned first")
        let inFolder =
            await rpc.call("conversations/list", ["folderId": workId])?["result"]?["conversations"]?.array ?? []
        #expect(inFolder.map { $0["id"] } == [id])
        #expect(await rpc.call("conversations/unpin", ["id": other])?["result"]?["pinned"] == false)
        #expect(await rpc.call("conversations/move", ["id": id, "folderId": .null])?["result"]?["folderPath"] == .null)

        #expect(
            await rpc.call("drafts/set", ["conversationId": id, "text": "half a thought"])?["result"]?["text"]
                == "half a thought")
        #expect(await rpc.call("drafts/get", ["conversationId": id])?["result"]?["text"] == "half a thought")
        // An editor that showed an older draft, its input left as shown or emptied, keeps the newer one.
        for text in ["an older thought", ""] {
            #expect(
                await rpc.call(
                    "drafts/set", ["conversationId": id, "text": .string(text), "shown": "an older thought"])?[
                        "result"]?["text"] == "half a thought")
        }
        #expect(await rpc.call("drafts/get", ["conversationId": id])?["result"]?["text"] == "half a thought")

        let sent = await rpc.call("chat/send", ["conversationId": id, "text": "echo:the quarterly zeppelin report"])
        #expect(sent?["result"]?["status"] == "complete")
        let hits = await rpc.call("conversations/search", ["query": "zeppelin"])?["result"]?["hits"]?.array ?? []
        #expect(hits.first?["conversationId"] == id)
        let full = try #require(await rpc.call("conversations/get", ["id": id])?["result"])
        #expect(full["messages"]?.array.map { $0["role"] } == ["user", "assistant"])
        #expect(full["messages"]?.array.last?["text"] == "the quarterly zeppelin report")

        #expect(await rpc.call("conversations/delete", ["id": id])?["result"]?["id"] == id)
        #expect(await rpc.call("conversations/get", ["id": id])?.errorKind == "not_found")
        #expect(await rpc.call("folders/delete", ["id": workId])?["result"]?["id"] == workId)
        await rpc.closeInput()
    }

    @Test func missingRecordsAreNotFoundAndBadValuesInvalidParams() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        for (method, params) in [
            ("conversations/rename", ["id": "nope", "title": "x"]), ("conversations/pin", ["id": "nope"]),
            ("conversations/unpin", ["id": "nope"]), ("conversations/delete", ["id": "nope"]),
            ("conversations/move", ["id": "nope", "folderId": .null]),
            ("drafts/get", ["conversationId": "nope"]), ("drafts/set", ["conversationId": "nope", "text": "t"]),
            ("folders/rename", ["id": 999, "name": "x"]), ("folders/delete", ["id": 999]),
            ("conversations/create", ["folderId": 999])
        ] as [(String, [String: JSONValue])] {
            let answer = await rpc.call(method, params)
            #expect(answer?.errorKind == "not_found", "\(method)")
            #expect(answer?.errorCode == -32015, "\(method)")
        }
        #expect(await rpc.call("folders/create", ["name": "a/b"])?.errorKind == "invalid_params")
        #expect(await rpc.call("folders/create", ["name": "Twice"])?["result"] != nil)
        #expect(
            await rpc.call("folders/create", ["name": "twice"])?.errorKind == "invalid_params",
            "sibling names are unique")
        #expect(await rpc.call("conversations/search", [:])?.errorKind == "invalid_params")
        #expect(await rpc.call("conversations/get", ["id": "nope"])?.errorKind == "not_found")
        #expect(await rpc.call("drafts/set", ["conversationId": 5])?.errorKind == "invalid_params")
        #expect(await rpc.call("conversations/list", ["limit": "ten"])?.errorKind == "invalid_params")
        await rpc.closeInput()
    }

    @Test func configGetAndSetUseTheSettingsFile() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        #expect(await rpc.call("config/get", ["key": "default_model"])?["result"]?["value"] == .null)
        #expect(
            await rpc.call("config/set", ["key": "default_model", "value": "acme/tiny-1b"])?["result"]?["value"]
                == "acme/tiny-1b")
        #expect(await rpc.call("config/get")?["result"]?["values"]?["default_model"] == "acme/tiny-1b")
        let file = try String(contentsOfFile: rpc.sandbox.root + "/config/llmster/config", encoding: .utf8)
        #expect(file.contains("default_model = acme/tiny-1b"))
        #expect(await rpc.call("config/set", ["key": "no_such_key", "value": "1"])?.errorKind == "invalid_params")
        #expect(
            await rpc.call("config/set", ["key": "display_interval_ms", "value": "soon"])?.errorKind == "invalid_params"
        )
        await rpc.closeInput()
    }
}
