import Chat
import Foundation
import Testing

@testable import Library

/// A streaming reply is saved in pieces: each partial save appends the new text, and the final save adds the rest
/// and moves the answer's start (all of a short one) into the message.
extension ChatSessionTests {
    @Test func partialSavesAppendPiecesAndTheFinalSaveJoinsThem() async throws {
        let harness = try Harness()
        let send = Task {
            try await harness.session.send(
                Turn(text: "[[sim:stall=30]] echo:alpha beta gamma delta"), in: harness.conversationId
            ) { _ in }
        }
        let observer = try harness.observer()
        let streaming = try #require(try await harness.firstSavedText(seenBy: observer))
        #expect(streaming.status == .streaming)
        let stored = try observer.connection.first("SELECT text FROM messages WHERE id = ?", [.text(streaming.id)]) {
            $0.string(0)
        }
        #expect(stored == "", "the text saved so far is not rewritten into the message at each save")
        let pieces = try observer.connection.query(
            "SELECT text FROM reply_pieces WHERE message_id = ? ORDER BY seq", [.text(streaming.id)]
        ) { $0.string(0) }
        #expect(pieces.joined() == streaming.text, "readers see the joined pieces")
        #expect(streaming.text.hasPrefix("alpha"))

        send.cancel()
        let reply = try await send.value
        let final = try #require(try observer.message(id: reply.messageId))
        #expect(final.status == .incomplete)
        #expect(final.text.hasPrefix(streaming.text))
        let left = try observer.connection.first(
            "SELECT count(*) FROM reply_pieces WHERE message_id = ?", [.text(reply.messageId)]
        ) { $0.int(0) }
        #expect(left == 0, "the final save moves a short reply's pieces into the message")
        #expect(
            try observer.connection.first("SELECT text FROM messages WHERE id = ?", [.text(reply.messageId)]) {
                $0.string(0)
            } == final.text)
    }
}
