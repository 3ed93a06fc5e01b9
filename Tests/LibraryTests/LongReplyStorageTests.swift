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
        let reply = try store.appendMessage(
            conversationId: conversation.id, role: .assistant, MessageContent(text: "", status: .streaming))
        // Multi-byte characters, so piece boundaries fall inside characters unless the cut respects them.
        let text = "openingword " + String(repeating: "plain text é日👩‍💻\n", count: 100_000)
        let reasoning = String(repeating: "why 🙂 ", count: 250_000)
        try store.updateReply(messageId: reply.id, MessageContent(text: text, reasoning: reasoning, status: .complete))

        let saved = try #require(try store.message(id: reply.id))
        #expect(saved.text == text)
        #expect(saved.reasoning == reasoning)
        #expect(try store.messages(conversationId: conversation.id).last?.text == text)
        let pieces = try store.connection.first(
            "SELECT count(*) FROM reply_pieces WHERE message_id = ?", [.text(reply.id)]
        ) { $0.int(0) }
        #expect(
            pieces == 2, "about 3 MB of answer and 2.5 MB of reasoning take three pieces each, the first in the message"
        )
        let longest = try store.connection.first(
            """
            SELECT max(length(CAST(text AS BLOB))) FROM (SELECT text FROM messages UNION ALL SELECT text FROM reply_pieces
                UNION ALL SELECT reasoning FROM messages UNION ALL SELECT reasoning FROM reply_pieces)
            """
        ) { $0.int(0) }
        #expect(longest.map { $0 <= LibraryStore.pieceBytes } == true)
        #expect(
            try store.search("openingword").contains { $0.messageId == reply.id },
            "the first piece is what the index reads")

        try store.updateReply(messageId: reply.id, MessageContent(text: "short now", status: .complete))
        #expect(try store.message(id: reply.id)?.text == "short now")
        #expect(try store.connection.first("SELECT count(*) FROM reply_pieces") { $0.int(0) } == 0)
        #expect(try store.search("openingword").isEmpty)
    }

    /// A reply saved in pieces while it streamed is finished by appending the rest, not written again: the saved
    /// pieces stay, the message takes about the first MiB of the answer for the search index, and it reads whole.
    @Test func finishingAStreamedReplyAppendsTheRestAndMovesTheAnswerStartIntoTheMessage() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let conversation = try store.createConversation(title: "streamed")
        let reply = try store.appendMessage(
            conversationId: conversation.id, role: .assistant, MessageContent(text: "", status: .streaming))
        let reasoning = String(repeating: "thinking 🙂 ", count: 60_000)
        let answer = "openingword " + String(repeating: "answer text é日\n", count: 150_000)
        // Saves while streaming: the reasoning, then the answer in pieces of 400,000 bytes at character boundaries.
        try store.appendReplyPieces(
            messageId: reply.id, MessageContent(text: "", reasoning: reasoning, status: .streaming))
        let saved = answer.utf8.pieces(after: 0, atMost: 400_000).prefix(4)
        for range in saved {
            try store.appendReplyPieces(
                messageId: reply.id, MessageContent(text: String(answer.utf8[range])!, status: .streaming))
        }
        let savedText = answer.utf8.distance(from: answer.utf8.startIndex, to: saved.last!.upperBound)
        let seqsBefore = try store.connection.query(
            "SELECT seq FROM reply_pieces WHERE message_id = ? ORDER BY seq", [.text(reply.id)]
        ) { $0.int64(0) }

        try store.finishReply(
            messageId: reply.id, MessageContent(text: answer, reasoning: reasoning, status: .complete),
            after: SavedLength(text: savedText, reasoning: reasoning.utf8.count))

        let finished = try #require(try store.message(id: reply.id))
        #expect(finished.text == answer && finished.reasoning == reasoning && finished.status == .complete)
        let head =
            try store.connection.first(
                "SELECT length(CAST(text AS BLOB)) FROM messages WHERE id = ?", [.text(reply.id)]
            ) { $0.int(0) } ?? 0
        #expect(
            head >= LibraryStore.pieceBytes && head <= 2 * LibraryStore.pieceBytes,
            "about the first MiB of the answer: \(head)")
        #expect(try store.search("openingword").contains { $0.messageId == reply.id })
        let seqsAfter = try store.connection.query(
            "SELECT seq FROM reply_pieces WHERE message_id = ? ORDER BY seq", [.text(reply.id)]
        ) { $0.int64(0) }
        // The reasoning piece and the fourth answer piece stay as they were saved; the first three answer pieces went
        // into the message (about 1.2 MB) and, left empty, were removed.
        #expect(
            seqsBefore.count == 5 && seqsAfter.starts(with: [seqsBefore[0], seqsBefore[4]]),
            "\(seqsBefore) → \(seqsAfter)")
        #expect(
            try store.connection.first(
                "SELECT count(*) FROM reply_pieces WHERE message_id = ? AND text = '' AND reasoning = ''",
                [.text(reply.id)]
            ) { $0.int(0) } == 0)
    }
}
