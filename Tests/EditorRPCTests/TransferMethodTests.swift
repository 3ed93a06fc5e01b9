import EditorRPC
import Foundation
import LMStudio
import Library
import Simulator
import TestSupport
import Testing

@Suite struct TransferMethodTests {
    /// A harness whose library holds one answered conversation; returns it with the conversation's id.
    private func answered(_ fixture: SimulatorFixture, text: String = "echo:the lighthouse keeper") async throws
        -> (RPCHarness, JSONValue)
    {
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let sent = try #require(await rpc.call("chat/send", ["text": .string(text)])?["result"])
        #expect(sent["status"] == "complete")
        return (rpc, try #require(sent["conversationId"]))
    }

    @Test func exportThenImportOnTheSameServerContinuesTheConversation() async throws {
        let fixture = try SimulatorFixture()
        let (source, id) = try await answered(fixture)
        let path = source.sandbox.root + "/lighthouse.llmster"
        #expect(
            await source.call("transfer/export", ["conversationId": id, "path": .string(path)])?["result"]?["path"]
                == .string(path))
        #expect(
            await source.call("transfer/export", ["conversationId": "nope", "path": .string(path + "2")])?.errorKind
                == "not_found")

        let target = try RPCHarness(serverURL: fixture.url)
        await target.initialize()
        let imported = try #require(await target.call("transfer/import", ["path": .string(path)])?["result"])
        #expect(imported["continuationKept"] == true)
        let newId = try #require(imported["conversation"]?["id"])
        let messages = await target.call("conversations/get", ["id": newId])?["result"]?["messages"]?.array ?? []
        #expect(messages.map { $0["text"] } == ["echo:the lighthouse keeper", "the lighthouse keeper"])
        #expect(await target.call("transfer/import", ["path": .string(path)])?.errorKind == "already_imported")
        #expect(await target.call("transfer/import", ["path": .string(path), "asNew": true])?["result"] != nil)

        let next = await target.call("chat/send", ["conversationId": newId, "text": "echo:and then?"])
        #expect(next?["result"]?["status"] == "complete")
        let request = try #require(fixture.requests(to: "/api/v1/chat").last)
        #expect(request.bodyKeys.contains("previous_response_id"), "the server-side context continues")
        await source.closeInput()
        await target.closeInput()
    }

    @Test func aFileFromAnotherServerNeedsConfirmationThenKeepsOrDrops() async throws {
        let origin = try SimulatorFixture()
        let (source, id) = try await answered(origin)
        let path = source.sandbox.root + "/elsewhere.llmster"
        #expect(await source.call("transfer/export", ["conversationId": id, "path": .string(path)])?["result"] != nil)

        let other = try SimulatorFixture()
        let target = try RPCHarness(serverURL: other.url)
        await target.initialize()
        let asked = try #require(await target.call("transfer/import", ["path": .string(path)]))
        #expect(asked.errorKind == "confirmation_required")
        #expect(asked.errorCode == -32019)
        let data = try #require(asked["error"]?["data"])
        #expect(data["fileServer"] == .string(origin.url))
        #expect(data["configuredServer"] == .string(other.url))
        #expect(data["title"]?.string?.isEmpty == false)
        #expect(
            await target.call("conversations/list")?["result"]?["conversations"]?.array.isEmpty == true,
            "nothing imported")

        let kept = try #require(
            await target.call("transfer/import", ["path": .string(path), "continuation": "keep"])?["result"])
        #expect(kept["continuationKept"] == true)
        #expect(kept["conversation"]?["serverURL"] == .string(origin.url))
        let dropped = try #require(
            await target.call(
                "transfer/import",
                [
                    "path": .string(path), "continuation": "drop", "asNew": true,
                    "folder": "Moved"
                ])?["result"])
        #expect(dropped["continuationKept"] == false)
        #expect(dropped["conversation"]?["serverURL"] == nil, "no server holds its context any more")
        #expect(dropped["conversation"]?["folderPath"] == "Moved")
        let droppedId = try #require(dropped["conversation"]?["id"])
        #expect(
            await target.call("chat/send", ["conversationId": droppedId, "text": "echo:fresh start"])?["result"]?[
                "status"] == "complete")
        #expect(other.requests(to: "/api/v1/chat").last?.bodyKeys.contains("previous_response_id") == false)
        #expect(
            await target.call("transfer/import", ["path": .string(path), "continuation": "maybe"])?.errorKind
                == "invalid_params")
        await source.closeInput()
        await target.closeInput()
    }

    @Test func aDamagedFileIsAnInvalidArchive() async throws {
        let fixture = try SimulatorFixture()
        let (rpc, id) = try await answered(fixture)
        let path = rpc.sandbox.root + "/damaged.llmster"
        #expect(await rpc.call("transfer/export", ["conversationId": id, "path": .string(path)])?["result"] != nil)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count / 2] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let answer = await rpc.call("transfer/import", ["path": .string(path), "asNew": true])
        #expect(answer?.errorKind == "invalid_archive")
        #expect(await rpc.call("conversations/list")?["result"]?["conversations"]?.array.count == 1)
        await rpc.closeInput()
    }

    @Test func backupThenRestorePreviewsConfirmsAndKeepsChatting() async throws {
        let fixture = try SimulatorFixture()
        let (rpc, id) = try await answered(fixture)
        #expect(await rpc.call("conversations/pin", ["id": id])?["result"] != nil)
        #expect(await rpc.call("folders/create", ["name": "Kept"])?["result"] != nil)
        let path = rpc.sandbox.root + "/library.llmster-backup"
        let backup = try #require(
            await rpc.call("library/backup", ["path": .string(path), "password": "correct horse"])?["result"])
        #expect(backup["path"] == .string(path))
        #expect(backup["encrypted"] == true)
        #expect(backup["statistics"]?["conversations"] == 1)

        #expect(await rpc.call("conversations/delete", ["id": id])?["result"] != nil)
        let preview = try #require(
            await rpc.call("library/restore", ["path": .string(path), "password": "correct horse"])?["result"])
        #expect(preview["restored"] == false)
        #expect(preview["conversations"] == 1)
        #expect(preview["messages"] == 2)
        #expect(preview["folders"] == 1)
        #expect(preview["pinned"] == 1)
        #expect(preview["encrypted"] == true)
        #expect(preview["oldest"]?.string != nil)
        #expect((preview["size"]?.int ?? 0) > 0)
        #expect(
            await rpc.call("conversations/list")?["result"]?["conversations"]?.array.isEmpty == true,
            "a preview changes nothing")

        let restored = try #require(
            await rpc.call(
                "library/restore",
                [
                    "path": .string(path), "password": "correct horse",
                    "confirm": true
                ])?["result"])
        #expect(restored["restored"] == true)
        let previous = try #require(restored["previousLibrary"]?.string)
        #expect(FileManager.default.fileExists(atPath: previous))
        let list = await rpc.call("conversations/list")?["result"]?["conversations"]?.array ?? []
        #expect(list.map { $0["id"] } == [id])
        #expect(list.first?["pinned"] == true)

        let next = await rpc.call("chat/send", ["conversationId": id, "text": "echo:after the restore"])
        #expect(next?["result"]?["status"] == "complete")
        let onDisk = try LibraryStore(path: rpc.sandbox.libraryPath)
        #expect(
            try onDisk.messages(conversationId: id.string ?? "").map(\.text).last == "after the restore",
            "the session writes to the restored file, not the renamed previous one")
        await rpc.closeInput()
    }

    @Test func aWrongPasswordOrAMissingOneLeavesTheLibraryUntouched() async throws {
        let fixture = try SimulatorFixture()
        let (rpc, id) = try await answered(fixture)
        let path = rpc.sandbox.root + "/locked.llmster-backup"
        #expect(await rpc.call("library/backup", ["path": .string(path), "password": "right"])?["result"] != nil)
        #expect(
            await rpc.call("conversations/rename", ["id": id, "title": "Renamed after the backup"])?["result"] != nil)
        for params: [String: JSONValue] in [
            ["path": .string(path), "password": "wrong", "confirm": true],
            ["path": .string(path), "confirm": true],
            ["path": .string(path), "password": "wrong"]
        ] {
            let answer = await rpc.call("library/restore", params)
            #expect(answer?.errorKind == "invalid_archive", "\(params)")
            #expect(answer?.errorCode == -32018)
        }
        #expect(
            await rpc.call("library/backup", ["path": .string(path + "2"), "password": ""])?.errorKind
                == "invalid_params")
        #expect(await rpc.call("library/restore", ["path": .string(rpc.sandbox.root + "/none")])?.errorKind != nil)
        let after = await rpc.call("conversations/get", ["id": id])?["result"]?["conversation"]
        #expect(after?["title"] == "Renamed after the backup")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: rpc.sandbox.root + "/data/llmster")
        #expect(!leftovers.contains { $0.contains("restoring") || $0.contains("before-restore") }, "\(leftovers)")
        #expect(
            await rpc.call("chat/send", ["conversationId": id, "text": "echo:still here"])?["result"]?["status"]
                == "complete")
        await rpc.closeInput()
    }
}

@Suite struct RestoreWhileStreamingTests {
    @Test func aConfirmedRestoreWaitsForStreamingRepliesToEnd() async throws {
        let fixture = try SimulatorFixture(SimulatorOptions(tokenDelay: 0.001))
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize(["coalesceMilliseconds": 0])
        let path = rpc.sandbox.root + "/plain.llmster-backup"
        #expect(await rpc.call("library/backup", ["path": .string(path)])?["result"]?["encrypted"] == false)
        let send = await rpc.request("chat/send", ["text": "[[sim:stall=30]] echo:one two three four five six"])
        #expect(await rpc.waitForAnswerText())
        let refused = await rpc.call("library/restore", ["path": .string(path), "confirm": true])
        #expect(refused?.errorKind == "busy")
        #expect(refused?["error"]?["data"]?["retryable"] == true)
        #expect(
            await rpc.call("library/restore", ["path": .string(path)])?["result"]?["conversations"] == 0,
            "a preview may run meanwhile")
        await rpc.notify("$/cancelRequest", ["id": send])
        #expect(await rpc.response(to: send).response?["result"]?["status"] == "incomplete")
        #expect(
            await rpc.call("library/restore", ["path": .string(path), "confirm": true])?["result"]?["restored"] == true)
        #expect(await rpc.call("conversations/list")?["result"]?["conversations"]?.array.isEmpty == true)
        await rpc.closeInput()
    }
}
