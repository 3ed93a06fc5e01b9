import Foundation
import Testing
@testable import Library

/// A long reply is saved in pieces of at most `LibraryStore.pieceBytes`, so saving it never needs a second copy of
/// it in memory, and every reader still sees it whole.
@Suite struct LongReplyStorageTests {
    @Test func aLongReplyIsSavedInPiecesAndReadBackWhole() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let conversation = try store.createConversation(title: "long")
        let reply = try store.appendMessage(conversationId: conversation.id, role: .assistant, text: "", status: .streaming)
        // Multi-byte characters, so piece boundaries fall inside characters unless the cut respects them.
        let text = "openingword " + String(repeating: "plain text é日👩‍💻\n", count: 100_000)
        let reasoning = String(repeating: "why 🙂 ", count: 250_000)
        try store.updateReply(messageId: reply.id, text: text, reasoning: reasoning, status: .complete)

        let saved = try #require(try store.message(id: reply.id))
        #expect(saved.text == text)
        #expect(saved.reasoning == reasoning)
        #expect(try store.messages(conversationId: conversation.id).last?.text == text)
        let pieces = try store.connection.first("SELECT count(*) FROM reply_pieces WHERE message_id = ?", [.text(reply.id)]) { $0.int(0) }
        #expect(pieces == 2, "about 3 MB of answer and 2.5 MB of reasoning take three pieces each, the first in the message")
        let longest = try store.connection.first(
            """
            SELECT max(length(CAST(text AS BLOB))) FROM (SELECT text FROM messages UNION ALL SELECT text FROM reply_pieces
                UNION ALL SELECT reasoning FROM messages UNION ALL SELECT reasoning FROM reply_pieces)
            """) { $0.int(0) }
        #expect(longest.map { $0 <= LibraryStore.pieceBytes } == true)
        #expect(try store.search("openingword").contains { $0.messageId == reply.id }, "the first piece is what the index reads")

        try store.updateReply(messageId: reply.id, text: "short now", reasoning: "", status: .complete)
        #expect(try store.message(id: reply.id)?.text == "short now")
        #expect(try store.connection.first("SELECT count(*) FROM reply_pieces") { $0.int(0) } == 0)
        #expect(try store.search("openingword").isEmpty)
    }
}
