import Testing
import Library

@Suite struct SearchTests {
    private func populated() throws -> (TemporaryLibrary, LibraryStore, Conversation, Message) {
        let library = TemporaryLibrary()
        let store = try library.open()
        let conversation = try store.createConversation(title: "Café planning")
        try store.appendMessage(conversationId: conversation.id, role: .user, text: "Where should we open the café?")
        let answer = try store.appendMessage(
            conversationId: conversation.id, role: .assistant,
            text: "Near the station. Rents AND foot traffic matter; see \"zoning\" rules. 東京 is expensive. C++ * wildcard")
        let other = try store.createConversation(title: "Unrelated")
        try store.appendMessage(conversationId: other.id, role: .user, text: "nothing to see")
        return (library, store, conversation, answer)
    }

    @Test func titlesComeFirstThenMessagesWithHighlightedSnippets() throws {
        let (_, store, conversation, _) = try populated()
        let hits = try store.search("cafe", limit: 10)
        #expect(hits.first == SearchHit(
            conversationId: conversation.id, messageId: nil, title: "Café planning", snippet: "[Café] planning"))
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
        ("東京", 1), ("", 0), ("   ", 0), ("-", 0), ("^station", 1), ("title:café", 0),
    ])
    func userInputIsSearchedLiterally(query: String, expectedHits: Int) throws {
        let (_, store, _, _) = try populated()
        #expect(try store.search(query, limit: 10).filter { $0.messageId != nil }.count == expectedHits)
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
            try store.appendMessage(conversationId: conversation.id, role: .user, text: "echo \(index)")
        }
        #expect(try store.search("echo", limit: 5).count == 5)
        #expect(try store.search("echo", limit: 50).count == 21)
        #expect(try store.search("echo", limit: 0).isEmpty)
    }
}
