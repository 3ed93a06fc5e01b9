import Foundation
import Testing

@testable import Library

@Suite(.spawnsProcesses) struct RecoveryTests {
    /// A real process standing in for a second llmster that streams a reply.
    private func startOtherProcess() throws -> (Process, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = ["600"]
        try process.run()
        let identity = try #require(ProcessIdentity.identity(of: process.processIdentifier))
        return (process, identity)
    }

    @Test func aReplyLeftStreamingByAProcessThatDiedBecomesIncompleteWithItsText() async throws {
        let library = TemporaryLibrary()
        let (other, identity) = try startOtherProcess()
        defer { if other.isRunning { kill(other.processIdentifier, SIGKILL) } }
        let reply: Message
        do {
            let otherStore = try LibraryStore(path: library.path, writer: identity)
            let conversation = try otherStore.createConversation(title: "interrupted")
            reply = try otherStore.appendMessage(
                conversationId: conversation.id, role: .assistant,
                MessageContent(text: "", status: .streaming))
            try otherStore.updateReply(
                messageId: reply.id,
                MessageContent(text: "The partial answer", reasoning: "hmm", status: .streaming))
        }
        let store = try library.open()
        #expect(try store.recoverInterruptedReplies() == 0)
        #expect(try store.message(id: reply.id)?.status == .streaming)

        kill(other.processIdentifier, SIGKILL)
        await other.waitForExit()
        #expect(try store.recoverInterruptedReplies() == 1)
        let recovered = try #require(try store.message(id: reply.id))
        #expect(recovered.status == .incomplete)
        #expect(recovered.text == "The partial answer")
        #expect(recovered.reasoning == "hmm")
        #expect(try store.recoverInterruptedReplies() == 0)
    }

    @Test func recoveryJoinsTheSavedPiecesOfAReply() async throws {
        let library = TemporaryLibrary()
        let (other, identity) = try startOtherProcess()
        defer { if other.isRunning { kill(other.processIdentifier, SIGKILL) } }
        let reply: Message
        do {
            let otherStore = try LibraryStore(path: library.path, writer: identity)
            let conversation = try otherStore.createConversation(title: "interrupted")
            reply = try otherStore.appendMessage(
                conversationId: conversation.id, role: .assistant,
                MessageContent(text: "", status: .streaming))
            try otherStore.appendReplyPieces(
                messageId: reply.id, MessageContent(text: "The partial", reasoning: "hm", status: .streaming))
            try otherStore.appendReplyPieces(
                messageId: reply.id, MessageContent(text: " answer", reasoning: "m", status: .streaming))
        }
        let store = try library.open()
        #expect(try store.message(id: reply.id)?.text == "The partial answer", "a reader sees the joined pieces")
        kill(other.processIdentifier, SIGKILL)
        await other.waitForExit()
        #expect(try store.recoverInterruptedReplies() == 1)
        let recovered = try #require(try store.message(id: reply.id))
        #expect(recovered.status == .incomplete)
        #expect(recovered.text == "The partial answer")
        #expect(recovered.reasoning == "hmm")
        #expect(try store.connection.first("SELECT count(*) FROM reply_pieces") { $0.int(0) } == 0)
        #expect(try store.search("partial").contains { $0.messageId == reply.id }, "the joined text is searchable")
    }

    @Test func repliesThisProcessIsStreamingAreLeftAlone() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let conversation = try store.createConversation(title: "live")
        let reply = try store.appendMessage(
            conversationId: conversation.id, role: .assistant,
            MessageContent(text: "so far", status: .streaming))
        #expect(try library.open().recoverInterruptedReplies() == 0)
        try store.updateReply(messageId: reply.id, MessageContent(text: "so far, and more", status: .complete))
        #expect(try store.message(id: reply.id)?.status == .complete)
    }

    @Test func aReusedPidDoesNotKeepAReplyStreaming() throws {
        let library = TemporaryLibrary()
        let impostor = try LibraryStore(path: library.path, writer: "\(getpid()):0")
        let conversation = try impostor.createConversation(title: "old run")
        let reply = try impostor.appendMessage(
            conversationId: conversation.id, role: .assistant,
            MessageContent(text: "x", status: .streaming))
        let anonymous = try impostor.appendMessage(
            conversationId: conversation.id, role: .assistant,
            MessageContent(text: "y", status: .streaming))
        try impostor.connection.run("UPDATE messages SET writer = NULL WHERE id = ?", [.text(anonymous.id)])
        #expect(try library.open().recoverInterruptedReplies() == 2)
        #expect(try impostor.messages(conversationId: conversation.id).map(\.status) == [.incomplete, .incomplete])
        #expect(try impostor.message(id: reply.id)?.text == "x")
    }
}
