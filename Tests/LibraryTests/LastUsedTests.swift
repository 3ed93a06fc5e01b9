import Foundation
import Testing

@testable import Library

/// The conversation last used (opened or sent to) is the one `-c` continues; listings keep sorting by activity.
@Suite struct LastUsedTests {
    @Test func openingOrSendingMakesAConversationTheMostRecentWithoutReorderingTheListing() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let older = try store.createConversation(title: "Older topic", createdAt: start)
        try store.appendMessage(
            conversationId: older.id, role: .user, MessageContent(text: "hello"), createdAt: start + 1)
        let planning = try store.createConversation(title: "Planning notes", createdAt: start + 10)
        #expect(try store.mostRecentConversation()?.id == planning.id, "a new conversation counts as used")

        try store.markUsed(conversationId: older.id, at: start + 20)
        #expect(try store.mostRecentConversation()?.id == older.id)
        #expect(try store.conversations().map(\.title) == ["Planning notes", "Older topic"], "opening is no activity")
        #expect(try store.conversation(id: older.id)?.updatedAt == start + 1)

        try store.markUsed(conversationId: planning.id, at: start + 5)
        #expect(try store.mostRecentConversation()?.id == older.id, "an earlier time never moves the last use back")

        try store.appendMessage(
            conversationId: planning.id, role: .user, MessageContent(text: "agenda"), createdAt: start + 30)
        #expect(try store.mostRecentConversation()?.id == planning.id, "sending to a conversation uses it")
        #expect(throws: LibraryError.self) { try store.markUsed(conversationId: "0000000000000000") }
    }

    @Test func anOlderLibraryTakesEachConversationsLastActivityAsItsLastUse() throws {
        let library = TemporaryLibrary()
        try FileManager.default.createDirectory(atPath: library.directory + "/data", withIntermediateDirectories: true)
        do {
            let connection = try SQLiteConnection(path: library.path)
            for step in Schema.migrations[..<11] { try connection.execute(step) }
            try connection.execute("PRAGMA user_version = 11")
            try connection.execute(
                """
                INSERT INTO conversations (id, title, created_at, updated_at) VALUES
                    ('c1', 'Active', 1, 3000), ('c2', 'Created later', 2000, 2000);
                """)
        }
        let store = try library.open()
        #expect(try store.mostRecentConversation()?.id == "c1")
    }
}
