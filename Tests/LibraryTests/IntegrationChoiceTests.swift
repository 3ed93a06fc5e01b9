import Library
import Testing

@Suite struct IntegrationChoiceTests {
    @Test func savesNamesOnceAndReportsOnlyNewlyEnabledOnes() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let id = try store.createConversation(title: "tools").id
        #expect(
            try store.setIntegrations(conversationId: id, names: ["docs", "browser", "docs"]) == ["docs", "browser"])
        #expect(try store.conversation(id: id)?.settings.integrations == ["docs", "browser"])
        #expect(try store.setIntegrations(conversationId: id, names: ["browser", "search"]) == ["search"])
        #expect(try store.setIntegrations(conversationId: id, names: []) == [])
        #expect(try store.conversation(id: id)?.settings.integrations == nil)
        #expect(throws: LibraryError.notFound(kind: "conversation", reference: "missing")) {
            try store.setIntegrations(conversationId: "missing", names: ["docs"])
        }
    }
}
