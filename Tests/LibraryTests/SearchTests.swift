import Foundation
import Testing

@testable import Library

@Suite struct SearchTests {
    private func populated() throws -> (TemporaryLibrary, LibraryStore, Conversation, Message) {
        let library = TemporaryLibrary()
        let store = try library.open()
        let conversation = try store.createConversation(title: "Café planning")
        try store.appendMessage(
            conversationId: conversation.id, role: .user, MessageContent(text: "Where should we open the café?"))
        let answer = try store.appendMessage(
            conversationId: conversation.id, role: .assistant,
            MessageContent(
                text:
                    "Near the station. Rents AND foot traffic matter; see \"zoning\" rules. 東京 is expensive. C++ * wildcard"
            ))
        let other = try store.createConversation(title: "Unrelated")
        try store.appendMessage(conversationId: other.id, role: .user, MessageContent(text: "nothing to see"))
        return (library, store, conversation, answer)
    }

    @Test func titlesComeFirstThenMessagesWithHighlightedSnippets() throws {
        let (_, store, conversation, _) = try populated()
        let hits = try store.search("cafe", limit: 10)
        #expect(
            hits.first
                == SearchHit(
                    conversationId: conversation.id, messageId: nil, title: "Café planning", snippet: "[Café] planning")
        )
        #expect(hits.count == 2)
        #expect(hits.dropFirst().allSatisfy { $0.conversationId == conversation.id && $0.messageId != nil })
        #expect(try store.search("CAFÉ", limit: 1).count == 1)
        let custom = try store.search("station", limit: 10, highlight: ("<b>", "</b>"))
        #expect(custom.count == 1)
        #expect(custom[0].snippet.contains("<b>station</b>"))
    }

    @Test func everyWordMustMatch() throws {
        let (_, store, _, answer) = try populated()
        #expect(try store.search("station rents", limit: 10).map(\.messageId) == [answer.id])
        #expect(try store.search("station unrelated", limit: 10).isEmpty)
    }

    @Test(arguments: [
        ("\"", 0), ("\"zoning\"", 1), ("zoning\"", 1), ("AND", 1), ("rents AND traffic", 1), ("OR", 0),
        ("NOT", 0), ("*", 0), ("C++", 1), ("wild*", 0), ("(station", 1), ("NEAR(", 1), ("station:", 1),
        ("東京", 1), ("", 0), ("   ", 0), ("-", 0), ("^station", 1), ("title:café", 0)
    ])
    func userInputIsSearchedLiterally(query: String, expectedHits: Int) throws {
        let (_, store, _, _) = try populated()
        #expect(try store.search(query, limit: 10).filter { $0.messageId != nil }.count == expectedHits)
    }

    @Test func aReplyIsSearchableOnceItStopsStreamingWithOnlyItsFinalText() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let conversation = try store.createConversation(title: "Streaming")
        let reply = try store.appendMessage(
            conversationId: conversation.id, role: .assistant, MessageContent(text: "", status: .streaming))
        try store.updateReply(messageId: reply.id, MessageContent(text: "draft walrus", status: .streaming))
        #expect(try store.search("walrus", limit: 10).isEmpty, "a streaming reply is not indexed at every partial save")
        try store.updateReply(messageId: reply.id, MessageContent(text: "final narwhal", status: .incomplete))
        #expect(try store.search("narwhal", limit: 10).map(\.messageId) == [reply.id])
        #expect(try store.search("walrus", limit: 10).isEmpty, "no stale words from a partial save")
        try store.updateReply(messageId: reply.id, MessageContent(text: "final narwhal and orca", status: .complete))
        #expect(try store.search("orca", limit: 10).map(\.messageId) == [reply.id])
        try store.delete(conversationId: conversation.id)
        #expect(try store.search("narwhal", limit: 10).isEmpty)
    }

    @Test func aHugeReplyIsSearchableByItsFirstMebibyte() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let conversation = try store.createConversation(title: "Huge")
        let filler = String(repeating: "lorem ipsum ", count: 100_000)
        let reply = try store.appendMessage(
            conversationId: conversation.id, role: .assistant,
            MessageContent(text: "aardvark " + filler + " zebra", status: .complete))
        #expect(try store.search("aardvark", limit: 10).map(\.messageId) == [reply.id])
        #expect(
            try store.search("zebra", limit: 10).isEmpty, "words past the first 1,048,576 characters are not indexed")
        try store.delete(conversationId: conversation.id)
        #expect(try store.search("aardvark", limit: 10).isEmpty)
    }

    @Test func renamingReindexesTheTitle() throws {
        let (_, store, conversation, _) = try populated()
        try store.rename(conversationId: conversation.id, to: "Bakery budget")
        #expect(try store.search("planning", limit: 10).isEmpty)
        #expect(try store.search("bakery", limit: 10).map(\.conversationId) == [conversation.id])
    }

    @Test func theLimitIsRespected() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let conversation = try store.createConversation(title: "echo echo")
        for index in 0..<20 {
            try store.appendMessage(conversationId: conversation.id, role: .user, MessageContent(text: "echo \(index)"))
        }
        #expect(try store.search("echo", limit: 5).count == 5)
        #expect(try store.search("echo", limit: 50).count == 21)
        #expect(try store.search("echo", limit: 0).isEmpty)
    }
}

/// Upgrading a library whose search index followed the earlier rule (every save, whole text).
@Suite struct SearchIndexUpgradeTests {
    @Test func aStreamingReplyAndAHugeReplyIndexedTheOldWayUpgradeToTheNewRule() throws {
        let library = TemporaryLibrary()
        try FileManager.default.createDirectory(atPath: library.directory + "/data", withIntermediateDirectories: true)
        let huge = "aardvark " + String(repeating: "lorem ipsum ", count: 100_000) + " zebra"
        do {
            let connection = try SQLiteConnection(path: library.path)
            for step in Schema.migrations[..<3] { try connection.execute(step) }
            try connection.execute("PRAGMA user_version = 3")
            try connection.execute(
                """
                INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 'Old', 1, 1);
                INSERT INTO messages (id, conversation_id, position, role, text, status, created_at, updated_at)
                    VALUES ('m0', 'c1', 0, 'user', 'walrus question', 'complete', 1, 1),
                           ('m1', 'c1', 1, 'assistant', 'half narwhal', 'streaming', 1, 1);
                """)
            _ = try connection.run(
                """
                INSERT INTO messages (id, conversation_id, position, role, text, status, created_at, updated_at)
                    VALUES ('m2', 'c1', 2, 'assistant', ?, 'complete', 1, 1)
                """, [.text(huge)])
        }
        let store = try library.open()
        #expect(try store.search("narwhal", limit: 10).isEmpty, "a streaming reply leaves the index")
        #expect(try store.search("zebra", limit: 10).isEmpty, "a huge reply keeps only its first mebibyte")
        #expect(try store.search("aardvark", limit: 10).map(\.messageId) == ["m2"])
        try store.updateReply(messageId: "m1", MessageContent(text: "whole narwhal", status: .incomplete))
        #expect(try store.search("narwhal", limit: 10).map(\.messageId) == ["m1"])
        try store.delete(conversationId: "c1")
        #expect(try store.search("walrus", limit: 10).isEmpty)
        #expect(try store.search("aardvark", limit: 10).isEmpty)
        try store.connection.execute("INSERT INTO message_search (message_search) VALUES ('integrity-check')")
    }
}
