import Foundation
import Library
import Testing

/// A user message no reply followed, as older versions left one when a send failed: found on the current branch.
@Suite struct UnansweredTests {
    @Test func messagesFollowedByAnotherOrEndingTheBranchAreUnanswered() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let id = try store.createConversation(title: "Recall").id
        func append(_ role: MessageRole, _ text: String, status: MessageStatus = .complete) throws -> String {
            try store.appendMessage(conversationId: id, role: role, MessageContent(text: text, status: status)).id
        }
        #expect(try store.trailingUnansweredMessage(conversationId: id) == nil, "an empty conversation")
        _ = try append(.user, "first")
        _ = try append(.assistant, "one")
        #expect(try store.trailingUnansweredMessage(conversationId: id) == nil)
        let orphan = try append(.user, "RECALL")
        let resent = try append(.user, "RECALL again")
        _ = try append(.assistant, "", status: .error)
        let last = try append(.user, "RECALL once more")

        let branch = try store.messages(conversationId: id)
        #expect(Message.unansweredIds(in: branch) == [orphan, last], "a failed reply still answers its message")
        let trailing = try #require(try store.trailingUnansweredMessage(conversationId: id))
        #expect(trailing.id == last && trailing.text == "RECALL once more")
        #expect(!Message.unansweredIds(in: branch).contains(resent))

        _ = try append(.assistant, "answered at last")
        #expect(try store.trailingUnansweredMessage(conversationId: id) == nil)
        #expect(Message.unansweredIds(in: try store.messages(conversationId: id)) == [orphan])
    }
}
