import Foundation
import Library
import TestSupport
import Testing

/// `llmster import --from-lmstudio`: LM Studio's desktop chats, read from a fake home in the shape public converters
/// read them (YorkieDev/lm-studio-conversation-converter), brought into the library once.
@Suite(.spawnsProcesses) struct LMStudioImportTests {
    /// A chat with a system prompt, an image, an answer LM Studio regenerated (the second version chosen) with its
    /// reasoning, and generation figures; fields llmster does not read are there to be skipped.
    static let chat = #"""
        {
          "name": "Trip planning",
          "createdAt": 1733000000000,
          "tokenCount": 321,
          "pinned": false,
          "lastUsedModel": {"identifier": "qwen/qwen3-4b", "indexedModelIdentifier": "qwen/qwen3-4b/q4.gguf"},
          "perChatPredictionConfig": {"fields": [{"key": "llm.prediction.systemPrompt", "value": "You are a travel agent."}]},
          "messages": [
            {"currentlySelected": 0, "versions": [
              {"type": "singleStep", "role": "user", "content": [
                {"type": "text", "text": "Where should I go in May?"},
                {"type": "file", "fileIdentifier": "1733000000000 - 1.png", "name": "map.png", "fileType": "image"}
              ]}
            ]},
            {"currentlySelected": 1, "versions": [
              {"type": "multiStep", "role": "assistant", "senderInfo": {"senderName": "qwen"}, "steps": [
                {"type": "contentBlock", "stepIdentifier": "a", "content": [{"type": "text", "text": "Lisbon, first try."}]}
              ]},
              {"type": "multiStep", "role": "assistant", "steps": [
                {"type": "contentBlock", "style": {"type": "thinking"}, "content": [{"type": "text", "text": "May is mild in Porto."}]},
                {"type": "contentBlock", "content": [{"type": "text", "text": "Porto: mild and quiet in May."}],
                 "genInfo": {"stats": {"tokensPerSecond": 42.5, "promptTokensCount": 120, "predictedTokensCount": 30}}},
                {"type": "debugInfoBlock", "debugInfo": "ignored"}
              ]}
            ]},
            {"currentlySelected": 0, "versions": [
              {"role": "user", "content": "And in June?"}
            ]}
          ]
        }
        """#

    static func fakeHome(_ cli: CLI) throws -> String {
        let home = cli.sandbox.root + "/home"
        try cli.sandbox.write(chat, to: "home/.lmstudio/conversations/1733000000000.conversation.json")
        try cli.sandbox.write(
            #"{"name":"Notes","createdAt":1733000100000,"messages":[{"versions":[{"role":"user","content":"hi"}]},{"versions":[{"role":"assistant","content":[{"type":"text","text":"hello"}]}]}]}"#,
            to: "home/.lmstudio/conversations/Work/1733000100000.conversation.json")
        try cli.sandbox.write(
            "{\"name\": \"cut off", to: "home/.lmstudio/conversations/1733000200000.conversation.json")
        try cli.sandbox.write(
            #"{"name":"Odd","messages":[{"currentlySelected":2,"versions":[{"role":"user","content":"x"}]}]}"#,
            to: "home/.lmstudio/conversations/1733000300000.conversation.json")
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]
        try FileManager.default.createDirectory(
            atPath: home + "/.lmstudio/user-files", withIntermediateDirectories: true)
        try Data(png).write(to: URL(fileURLWithPath: home + "/.lmstudio/user-files/1733000000000 - 1.png"))
        return home
    }

    @Test func lmStudioChatsArePreviewedThenImportedOnceWithBranchesFoldersAndImages() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let home = try Self.fakeHome(cli)
        let before = try FileManager.default.contentsOfDirectory(atPath: home + "/.lmstudio/conversations").sorted()

        let preview = try await cli.run(["import", "--from-lmstudio", "--dry-run"])
        #expect(preview.status == 0, "\(preview)")
        #expect(preview.output.contains("2 chats, 6 messages, 1 folder (Work)"), "\(preview.output)")
        #expect(preview.output.contains("1733000200000.conversation.json: not a JSON object"), "\(preview.output)")
        #expect(
            preview.output.contains("1733000300000.conversation.json: message 1 selects version 3 of 1"),
            "\(preview.output)")
        #expect(!preview.output.contains("Imported"))
        #expect(try LibraryStore(path: cli.sandbox.libraryPath).conversations().isEmpty, "a dry run imports nothing")

        let imported = try await cli.run(["import", "--from-lmstudio"])
        #expect(imported.output.contains("Imported 2 chats."), "\(imported.output)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: home + "/.lmstudio/conversations").sorted() == before,
            "read only")

        let library = try LibraryStore(path: cli.sandbox.libraryPath)
        let trip = try #require(try library.conversations().first { $0.title == "Trip planning" })
        #expect(trip.modelKey == "qwen/qwen3-4b" && trip.systemPrompt == "You are a travel agent.")
        let branch = try library.messages(conversationId: trip.id)
        #expect(
            branch.map(\.text) == ["Where should I go in May?", "Porto: mild and quiet in May.", "And in June?"],
            "\(branch.map(\.text))")
        #expect(branch[1].reasoning == "May is mild in Porto.")
        #expect(
            branch[1].statsJSON?.contains("\"input_tokens\":120") == true, "\(String(describing: branch[1].statsJSON))")
        #expect(
            try library.alternatives(messageId: branch[1].id).map(\.text) == [
                "Lisbon, first try.", "Porto: mild and quiet in May."
            ])
        #expect(try library.attachments(messageId: branch[0].id).map(\.name) == ["map.png"])
        let notes = try #require(try library.conversations().first { $0.title == "Notes" })
        #expect(try notes.folderId.map { try library.folderPath(id: $0) } == "Work")

        let again = try await cli.run(["import", "--from-lmstudio=" + home + "/.lmstudio/conversations"])
        #expect(
            again.output.contains("2 imported before")
                && again.output.contains("Imported 0 chats; 2 were imported before."), "\(again.output)")
        #expect(try library.conversations().count == 2, "nothing twice")
    }

    @Test func aMissingDirectorySaysWhereItLooked() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let result = try await cli.run(["import", "--from-lmstudio"])
        #expect(
            result.status != 0
                && result.errors.contains(".lmstudio/conversations is not a directory of LM Studio chats"), "\(result)")
    }
}
