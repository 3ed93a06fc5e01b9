import Foundation
import Library
import Testing

@Suite struct MessageTests {
    @Test func messagesAppendInOrderAndTouchTheConversation() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let created = Date(timeIntervalSince1970: 1_600_000_000)
        let conversation = try store.createConversation(title: "chat", createdAt: created)
        let question = try store.appendMessage(
            conversationId: conversation.id, role: .user, MessageContent(text: "Why is the sky blue?"))
        let system = try store.appendMessage(
            conversationId: conversation.id, role: .system, MessageContent(text: "note"))
        #expect(question.position == 0 && system.position == 1)
        #expect(try store.messages(conversationId: conversation.id) == [question, system])
        #expect(try store.message(id: question.id) == question)
        #expect(try store.conversation(id: conversation.id)!.updatedAt > created)
        #expect(throws: LibraryError.notFound(kind: "conversation", reference: "missing")) {
            try store.appendMessage(conversationId: "missing", role: .user, MessageContent(text: "x"))
        }
    }

    @Test func aStreamingReplyIsUpdatedUntilComplete() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let conversation = try store.createConversation(title: "chat")
        let reply = try store.appendMessage(
            conversationId: conversation.id, role: .assistant, MessageContent(text: "", status: .streaming))
        try store.updateReply(
            messageId: reply.id,
            MessageContent(text: "Rayleigh", reasoning: "think", status: .streaming, modelInstanceId: "qwen:1"))
        try store.updateReply(
            messageId: reply.id,
            MessageContent(
                text: "Rayleigh scattering.", reasoning: "thinking done", status: .complete,
                statsJSON: #"{"input_tokens":12,"total_output_tokens":40,"tokens_per_second":31.5}"#,
                responseId: "resp_9"))
        let stored = try #require(try store.message(id: reply.id))
        #expect(stored.text == "Rayleigh scattering.")
        #expect(stored.reasoning == "thinking done")
        #expect(stored.status == .complete)
        #expect(stored.modelInstanceId == "qwen:1")
        #expect(stored.responseId == "resp_9")
        #expect(stored.error == nil)
        #expect(stored.updatedAt >= reply.updatedAt)
        #expect(try store.search("scattering", limit: 5).map(\.messageId) == [reply.id])
        #expect(try store.search("Rayleigh", limit: 5).count == 1)

        try store.updateReply(
            messageId: reply.id, MessageContent(text: stored.text, status: .error, error: "server went away"))
        #expect(try store.message(id: reply.id)?.error == "server went away")
        #expect(try store.message(id: reply.id)?.statsJSON == stored.statsJSON)
        #expect(throws: LibraryError.notFound(kind: "message", reference: "nope")) {
            try store.updateReply(messageId: "nope", MessageContent(text: "", status: .complete))
        }
    }

    @Test func theLatestReplyStatisticsAreReadFromTheStoredJSON() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let conversation = try store.createConversation(title: "stats")
        #expect(try store.lastReplyStatistics(conversationId: conversation.id) == nil)
        try store.appendMessage(
            conversationId: conversation.id, role: .assistant,
            MessageContent(
                text: "one", statsJSON: #"{"input_tokens":10,"total_output_tokens":5,"tokens_per_second":20}"#))
        let second = try store.appendMessage(
            conversationId: conversation.id, role: .assistant,
            MessageContent(
                text: "two",
                statsJSON: #"{"input_tokens":30,"total_output_tokens":12,"reasoning_output_tokens":4,"#
                    + #""tokens_per_second":41.5,"time_to_first_token_seconds":0.25,"unknown":{"x":1}}"#))
        try store.appendMessage(conversationId: conversation.id, role: .user, MessageContent(text: "no stats"))
        #expect(
            try store.lastReplyStatistics(conversationId: conversation.id)
                == ReplyStatistics(
                    messageId: second.id, inputTokens: 30, totalOutputTokens: 12, reasoningOutputTokens: 4,
                    tokensPerSecond: 41.5, timeToFirstTokenSeconds: 0.25))
    }

    @Test func statsJSONMustBeValid() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let conversation = try store.createConversation(title: "chat")
        #expect(throws: LibraryError.self) {
            try store.appendMessage(
                conversationId: conversation.id, role: .assistant, MessageContent(text: "", statsJSON: "{oops"))
        }
        #expect(try store.messages(conversationId: conversation.id).isEmpty)
    }

    @Test func toolCallsAreReplacedAsAWhole() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let conversation = try store.createConversation(title: "tools")
        let reply = try store.appendMessage(
            conversationId: conversation.id, role: .assistant, MessageContent(text: "", status: .streaming))
        let running = ToolCallRecord(
            messageId: reply.id, position: 0, name: "search", argumentsJSON: #"{"q":"swift"}"#,
            providerJSON: #"{"type":"plugin","plugin_id":"web"}"#, status: .running)
        try store.replaceToolCalls(messageId: reply.id, [running])
        #expect(try store.toolCalls(messageId: reply.id) == [running])

        var done = running
        done.status = .succeeded
        done.output = "3 results"
        let failed = ToolCallRecord(
            messageId: reply.id, position: 1, name: "fetch", argumentsJSON: "{}", status: .failed,
            failureReason: "timeout")
        try store.replaceToolCalls(messageId: reply.id, [failed, done])
        #expect(try store.toolCalls(messageId: reply.id) == [done, failed])
        #expect(throws: LibraryError.notFound(kind: "message", reference: "ghost")) {
            try store.replaceToolCalls(messageId: "ghost", [])
        }
    }

    @Test func attachmentsKeepTheirBytesAndHash() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let conversation = try store.createConversation(title: "files")
        let message = try store.appendMessage(
            conversationId: conversation.id, role: .user, MessageContent(text: "see attached"))
        let text = try store.addAttachment(
            messageId: message.id, name: "abc.txt", mimeType: "text/plain", bytes: Array("abc".utf8))
        let binary: [UInt8] = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let image = try store.addAttachment(messageId: message.id, name: "x.png", mimeType: "image/png", bytes: binary)
        let empty = try store.addAttachment(messageId: message.id, name: "empty", mimeType: "text/plain", bytes: [])
        #expect(text.sha256 == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(empty.sha256 == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(try store.attachments(messageId: message.id) == [text, image, empty])
        let statistics = try store.statistics()
        #expect(statistics.attachments == 3)
        #expect(statistics.attachmentBytes == 70_003)
    }

    @Test func statisticsCountTheWholeLibrary() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        try store.createFolder(name: "a")
        let first = try store.createConversation(title: "one", createdAt: Date(timeIntervalSince1970: 1_000))
        let second = try store.createConversation(title: "two", createdAt: Date(timeIntervalSince1970: 2_000))
        try store.appendMessage(
            conversationId: first.id, role: .user,
            MessageContent(text: "x"), createdAt: Date(timeIntervalSince1970: 5_000))
        try store.appendMessage(
            conversationId: second.id, role: .user,
            MessageContent(text: "y"), createdAt: Date(timeIntervalSince1970: 3_000))
        try store.pin(conversationId: second.id)
        try store.setDraft(conversationId: first.id, text: "later")
        #expect(
            try store.statistics()
                == LibraryStatistics(
                    folders: 1, conversations: 2, messages: 2, attachments: 0, attachmentBytes: 0, pinned: 1, drafts: 1,
                    oldest: Date(timeIntervalSince1970: 1_000), newest: Date(timeIntervalSince1970: 5_000)))
    }

    @Test func aFailedTransactionLeavesNothingBehind() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let conversation = try store.createConversation(title: "atomic")
        #expect(throws: LibraryError.self) {
            try store.transaction {
                try store.appendMessage(conversationId: conversation.id, role: .user, MessageContent(text: "first"))
                try store.appendMessage(conversationId: "missing", role: .user, MessageContent(text: "second"))
            }
        }
        #expect(try store.messages(conversationId: conversation.id).isEmpty)
        #expect(try store.search("first", limit: 5).isEmpty)
    }
}
