import Foundation
import Testing

@testable import Library

@Suite struct OpeningTests {
    @Test func createsAPrivateFileInNewDirectoriesAndMigratesFromEmpty() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let attributes = try FileManager.default.attributesOfItem(atPath: library.path)
        let directory = try FileManager.default.attributesOfItem(atPath: library.directory + "/data")
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect((directory[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        #expect(
            try store.statistics()
                == LibraryStatistics(
                    folders: 0, conversations: 0, messages: 0, attachments: 0, attachmentBytes: 0, pinned: 0, drafts: 0,
                    oldest: nil, newest: nil))
    }

    @Test func migratesAnExistingEmptyFile() throws {
        let library = TemporaryLibrary()
        try FileManager.default.createDirectory(atPath: library.directory + "/data", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: library.path, contents: Data()))
        let store = try library.open()
        #expect(try store.createConversation(title: "first").title == "first")
    }

    @Test func reopeningKeepsEverything() throws {
        let library = TemporaryLibrary()
        let conversation: Conversation
        do {
            let store = try library.open()
            let folder = try store.createFolder(name: "Work")
            conversation = try store.createConversation(
                title: "Plans", folderId: folder.id, modelKey: "qwen3-8b", systemPrompt: "Be brief.",
                settings: ConversationSettings(temperature: 0.7, topK: 40, reasoning: "high", integrations: ["mcp/x"]))
            try store.appendMessage(conversationId: conversation.id, role: .user, MessageContent(text: "hello"))
        }
        let reopened = try library.open()
        #expect(try reopened.conversation(id: conversation.id)?.settings.temperature == 0.7)
        #expect(try reopened.conversation(id: conversation.id)?.settings.integrations == ["mcp/x"])
        #expect(try reopened.messages(conversationId: conversation.id).map(\.text) == ["hello"])
        #expect(try reopened.folder(path: "work")?.name == "Work")
    }

    @Test func refusesAFileFromANewerSchema() throws {
        let library = TemporaryLibrary()
        do {
            let store = try library.open()
            try store.connection.execute("PRAGMA user_version = 99")
        }
        #expect(throws: LibraryError.newerSchema(found: 99, supported: Schema.migrations.count, path: library.path)) {
            try library.open()
        }
    }

    @Test func reportsANonDatabaseFileReadably() throws {
        let library = TemporaryLibrary()
        try FileManager.default.createDirectory(atPath: library.directory + "/data", withIntermediateDirectories: true)
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: library.path))
        do {
            _ = try library.open()
            Issue.record("opened a file that is not a database")
        } catch let error as LibraryError {
            #expect(error.description.contains(library.path))
            #expect(error.description.contains("not a database"))
        }
    }
}
