import Foundation
import Library
import Testing

/// A library with something of everything an archive must carry.
enum RichLibrary {
    /// Fills `store`: nested folders, pins, drafts, reasoning, stats, tool calls, attachments, incomplete and failed replies.
    static func fill(_ store: LibraryStore, attachmentBytes: Int = 3_000) throws {
        let research = try store.ensureFolder(path: "Work/Research")
        _ = try store.createFolder(name: "Home")
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let main = try store.createConversation(
            title: "SSE deep dive", folderId: research.id, modelKey: "acme/thinker-8b", systemPrompt: "Be brief.",
            settings: ConversationSettings(temperature: 0.4, topK: 20, reasoning: "high", integrations: ["mcp/files"]),
            createdAt: start)
        let question = try store.appendMessage(
            conversationId: main.id, role: .user, MessageContent(text: "What is SSE? ünïcödé 🧪"),
            createdAt: start.addingTimeInterval(1))
        try store.addAttachment(
            messageId: question.id, name: "diagram.png", mimeType: "image/png",
            bytes: (0..<attachmentBytes).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try store.addAttachment(messageId: question.id, name: "empty.txt", mimeType: "text/plain", bytes: [])
        let reply = try store.appendMessage(
            conversationId: main.id, role: .assistant,
            MessageContent(
                text: "Server-sent events.", reasoning: "The user asks…",
                statsJSON: #"{"input_tokens":12,"total_output_tokens":40,"tokens_per_second":31.5}"#,
                modelInstanceId: "acme/thinker-8b:2", responseId: "resp_1"),
            createdAt: start.addingTimeInterval(2))
        try store.replaceToolCalls(
            messageId: reply.id,
            [
                ToolCallRecord(
                    messageId: reply.id, position: 0, name: "search", argumentsJSON: #"{"q":"sse"}"#,
                    output: "3 results", providerJSON: #"{"type":"plugin","plugin_id":"web"}"#, status: .succeeded,
                    answerOffset: 7, reasoningOffset: 8),
                ToolCallRecord(
                    messageId: reply.id, position: 1, name: "fetch", argumentsJSON: "{}", status: .failed,
                    failureReason: "timeout")
            ])
        let cut = try store.appendMessage(
            conversationId: main.id, role: .assistant,
            MessageContent(text: "Half an ans", reasoning: "partial", status: .incomplete, error: "cancelled"),
            createdAt: start.addingTimeInterval(3))
        _ = cut
        try store.setContinuation(conversationId: main.id, serverURL: "http://127.0.0.1:1234", responseId: "resp_1")
        try store.pin(conversationId: main.id)

        let drafty = try store.createConversation(title: "Groceries", createdAt: start.addingTimeInterval(10))
        try store.appendMessage(conversationId: drafty.id, role: .system, MessageContent(text: "List mode."))
        try store.appendMessage(
            conversationId: drafty.id, role: .assistant,
            MessageContent(text: "", status: .error, error: "model crashed"))
        try store.setDraft(conversationId: drafty.id, text: "and milk")
        let other = try store.createConversation(title: "Pinned too", createdAt: start.addingTimeInterval(20))
        try store.pin(conversationId: other.id)
    }

    /// Everything in a library, ids and all, for comparing a restore with its original.
    static func snapshot(_ store: LibraryStore) throws -> String {
        var lines: [String] = try store.folders().map { "\($0)" }
        for conversation in try store.conversations().sorted(by: { $0.id < $1.id }) {
            lines.append("\(conversation)")
            for message in try store.messages(conversationId: conversation.id) {
                lines.append("\(message)")
                lines += try store.toolCalls(messageId: message.id).map { "\($0)" }
                lines += try store.attachments(messageId: message.id).map { "\($0)" }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// A conversation as a user sees it, without ids: what an import must reproduce.
    static func content(of conversationId: String, in store: LibraryStore) throws -> String {
        let conversation = try #require(try store.conversation(id: conversationId))
        var lines = [
            conversation.title, try conversation.folderId.map { try store.folderPath(id: $0) } ?? "-",
            "\(conversation.pinned)", "\(conversation.createdAt)", "\(conversation.updatedAt)",
            conversation.modelKey ?? "-", conversation.systemPrompt ?? "-", "\(conversation.settings)",
            conversation.serverURL ?? "-", conversation.lastResponseId ?? "-", conversation.draft
        ]
        for message in try store.messages(conversationId: conversationId) {
            lines.append(
                "\(message.role) \(message.text) \(message.reasoning) \(message.status) \(message.error ?? "-") "
                    + "\(message.statsJSON ?? "-") \(message.modelInstanceId ?? "-") \(message.responseId ?? "-") "
                    + "\(message.createdAt) \(message.updatedAt) \(message.position)")
            lines += try store.toolCalls(messageId: message.id).map {
                "\($0.position) \($0.name) \($0.argumentsJSON) \($0.output ?? "-") \($0.providerJSON ?? "-") \($0.status) \($0.failureReason ?? "-") "
                    + "\($0.answerOffset.map(String.init) ?? "-") \($0.reasoningOffset.map(String.init) ?? "-")"
            }
            lines += try store.attachments(messageId: message.id).map {
                "\($0.name) \($0.mimeType) \($0.sha256) \($0.bytes)"
            }
        }
        return lines.joined(separator: "\n")
    }
}
