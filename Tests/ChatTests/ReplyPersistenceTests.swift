import Foundation
import LMStudio
import TestSupport
import Testing

@testable import Chat
@testable import Library

/// What each save of a streaming reply writes, given what the saves before it hold, on a real library file.
@Suite struct ReplyPersistenceTests {
    /// A library with a conversation and an empty reply streaming into it.
    struct Reply {
        let sandbox: Sandbox
        let library: LibraryStore
        let messageId: String
        var accumulator = ReplyAccumulator()

        init() throws {
            sandbox = try Sandbox()
            library = try LibraryStore(path: sandbox.libraryPath)
            let conversation = try library.createConversation(title: "saves")
            messageId = try library.appendMessage(
                conversationId: conversation.id, role: .assistant,
                MessageContent(text: "", status: .streaming)
            ).id
        }

        mutating func stream(_ events: ChatEvent...) {
            for event in events { _ = accumulator.apply(event) }
        }

        var state: ReplyState { accumulator.state }

        /// The answer of each reply piece, in order.
        func pieces() throws -> [String] {
            try library.connection.query(
                "SELECT text FROM reply_pieces WHERE message_id = ? ORDER BY seq", [.text(messageId)]
            ) {
                $0.string(0)
            }
        }

        func saved() throws -> Message { try #require(try library.message(id: messageId)) }

        /// Makes the library refuse any piece that would take the reply's answer in pieces past `bytes`, as a full
        /// disk would; each refusal rolls back the whole save.
        func refuseAnswersLongerThan(_ bytes: Int) throws {
            try library.connection.execute(
                """
                CREATE TEMP TRIGGER full_disk BEFORE INSERT ON reply_pieces
                WHEN (SELECT ifnull(sum(length(CAST(text AS BLOB))), 0) FROM reply_pieces WHERE message_id = NEW.message_id)
                    + length(CAST(NEW.text AS BLOB)) > \(bytes)
                BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END
                """)
        }

        func makeRoom() throws { try library.connection.execute("DROP TRIGGER full_disk") }
    }

    @Test func aSecondSaveAppendsOnlyWhatArrivedAfterTheFirst() throws {
        var reply = try Reply()
        var persistence = ReplyPersistence(messageId: reply.messageId)
        reply.stream(.reasoningStart, .reasoningDelta("Think."), .messageStart, .messageDelta("alpha "))
        persistence.saveArrived(reply.state, to: reply.library)
        reply.stream(.messageDelta("béta"))
        persistence.saveArrived(reply.state, to: reply.library)

        #expect(try reply.pieces() == ["alpha ", "béta"])
        #expect(persistence.saved == SavedLength(text: "alpha béta".utf8.count, reasoning: "Think.".utf8.count))
        let saved = try reply.saved()
        #expect(saved.text == "alpha béta" && saved.reasoning == "Think." && saved.status == .streaming)
    }

    /// The periodic saves copy a stretch of what arrived out of the reply rather than hold the whole answer, which
    /// the stream goes on appending to; a stretch ends between characters, and saves catch up one after another.
    @Test func savesOfStretchesOfTheArrivedTextCatchUpWithTheWholeReply() throws {
        var reply = try Reply()
        reply.stream(
            .reasoningStart, .reasoningDelta("Thïnk."), .messageStart, .messageDelta("héllo wörld "),
            .toolCallStart(tool: "search", provider: nil),
            .toolCallSuccess(tool: "search", arguments: .object([:]), output: "found", provider: nil),
            .messageStart, .messageDelta("ünd 🙂 mehr"))
        #expect(try Self.saveInStretches(reply, atMost: 5) > 4)
        let call = try #require(try reply.library.toolCalls(messageId: reply.messageId).first)
        #expect(call.answerOffset == reply.state.toolCallOffsets[0].answer && call.answerOffset! > 0)
        #expect(call.output == "found")
    }

    /// A run of newlines longer than a stretch (a model repeating blank lines on a fast server) is saved through: the
    /// saves once stopped at its start for good, as a stretch may not end between two newlines.
    @Test func savesGoOnThroughARunOfNewlinesLongerThanAStretch() throws {
        var reply = try Reply()
        reply.stream(.messageStart, .messageDelta("a" + String(repeating: "\n", count: 20) + "more text after them"))
        #expect(try Self.saveInStretches(reply, atMost: 8) > 3)
    }

    /// Text that came after a tool call is not saved before the call: reasoning longer than a stretch, then a call,
    /// then the answer.
    @Test func textAfterAToolCallWaitsForTheSaveThatReachesTheCall() throws {
        var reply = try Reply()
        reply.stream(
            .reasoningStart, .reasoningDelta("Thinking it over."),
            .toolCallStart(tool: "search", provider: nil),
            .toolCallSuccess(tool: "search", arguments: .object([:]), output: "found", provider: nil),
            .messageStart, .messageDelta("Result"))
        #expect(try Self.saveInStretches(reply, atMost: 8) > 2)
        #expect(try reply.library.toolCalls(messageId: reply.messageId).count == 1)
    }

    /// Saves `reply` in stretches of at most `limit` bytes until the library holds all of it, checking after each that
    /// what a reader sees is a start of the reply: no part separator (the newlines at a tool call) cut in two, no tool call before text that comes
    /// before it, and no text after a call that is not saved yet. Returns how many saves it took.
    static func saveInStretches(_ reply: Reply, atMost limit: Int) throws -> Int {
        var persistence = ReplyPersistence(messageId: reply.messageId)
        let answer = Array(reply.state.answer.utf8)
        let offsets = reply.state.toolCallOffsets
        var saves = 0
        while persistence.saved.text < answer.count || persistence.saved.reasoning < reply.state.reasoning.utf8.count {
            let arrived = ReplyPersistence.Arrived(cutting: reply.state, after: persistence.saved, atMost: limit)
            #expect(arrived.state.answer.utf8.count <= limit && arrived.state.reasoning.utf8.count <= limit)
            persistence.saveArrived(arrived, to: reply.library)
            saves += 1
            try #require(saves < 100, "the saves do not catch up")
            let message = try reply.saved()
            let saved = message.text.utf8.count
            let inSeparator =
                saved > 0 && saved < answer.count && answer[saved - 1] == 0x0A && answer[saved] == 0x0A
                && offsets.contains { $0.answer == saved - 1 || $0.answer == saved + 1 }
            #expect(!inSeparator, "a part separator cut at \(saved)")
            let calls = try reply.library.toolCalls(messageId: reply.messageId)
            #expect(calls.allSatisfy { $0.answerOffset == offsets[$0.position].answer }, "a call moved at \(saved)")
            for offset in offsets.dropFirst(calls.count) {
                #expect(
                    saved <= offset.answer && message.reasoning.utf8.count <= offset.reasoning,
                    "text after a call not saved yet: \(message.reasoning.utf8.count), \(saved)")
            }
        }
        let saved = try reply.saved()
        #expect(saved.text == reply.state.answer && saved.reasoning == reply.state.reasoning)
        return saves
    }

    @Test func aSaveThatFailsIsWrittenByTheNextOne() throws {
        var reply = try Reply()
        var persistence = ReplyPersistence(messageId: reply.messageId)
        reply.stream(.messageStart, .messageDelta("first "))
        persistence.saveArrived(reply.state, to: reply.library)
        try reply.refuseAnswersLongerThan(6)
        reply.stream(.messageDelta("second "))
        persistence.saveArrived(reply.state, to: reply.library)
        #expect(persistence.saved.text == 6, "a refused save leaves what is saved as it was")

        try reply.makeRoom()
        reply.stream(.messageDelta("third"))
        persistence.saveArrived(reply.state, to: reply.library)
        #expect(try reply.pieces() == ["first ", "second third"])
        #expect(try reply.saved().text == "first second third")
    }

    @Test func theFinalSaveWritesOnlyTheRestAndTheStatus() throws {
        var reply = try Reply()
        var persistence = ReplyPersistence(messageId: reply.messageId)
        reply.stream(.messageStart, .messageDelta("streamed "))
        persistence.saveArrived(reply.state, to: reply.library)
        reply.stream(.messageDelta("rest"))
        try persistence.saveFinal(reply.state, status: .incomplete, error: "Cancelled.", to: reply.library)

        let saved = try reply.saved()
        #expect(saved.text == "streamed rest" && saved.status == .incomplete && saved.error == "Cancelled.")
        #expect(try reply.pieces().isEmpty, "a short reply's pieces are moved into the message")
    }

    @Test func aFullDiskAfterSomeSavesKeepsThemAndTheLongestPartOfTheRestThatFits() throws {
        var reply = try Reply()
        var persistence = ReplyPersistence(messageId: reply.messageId)
        reply.stream(.messageStart, .messageDelta(String(repeating: "a", count: 1_000_000)))
        persistence.saveArrived(reply.state, to: reply.library)
        reply.stream(.messageDelta(String(repeating: "b", count: 4_000_000)))
        try reply.refuseAnswersLongerThan(3_000_000)

        #expect(throws: LibraryError.self) {
            try persistence.saveFinal(reply.state, status: .complete, error: nil, to: reply.library)
        }
        // The rest, 4 MB, does not fit; half of it does.
        let message = try #require(persistence.saveWhatFits(reply.state, to: reply.library))
        #expect(
            message
                == "The library could not store the whole reply (is the disk full?): kept the first 3.0 MB of 5.0 MB of the answer."
        )
        let saved = try reply.saved()
        #expect(saved.status == .incomplete && saved.error == message)
        #expect(saved.text == String(repeating: "a", count: 1_000_000) + String(repeating: "b", count: 2_000_000))
    }
}
