import Foundation
import Library
import Testing

@Suite struct ConversationTests {
    @Test func createdConversationsReadBackEqual() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let created = try store.createConversation(
            title: "Trip", modelKey: "gemma-3", systemPrompt: "You plan trips.",
            settings: ConversationSettings(
                topP: 0.9, minP: 0.05, repeatPenalty: 1.1, maxOutputTokens: 512,
                contextLength: 8192))
        #expect(created.id.count == 16)
        #expect(created.id.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(try store.conversation(id: created.id) == created)
        #expect(try store.conversation(id: "0000000000000000") == nil)
    }

    @Test func listingPutsPinsFirstThenRecentActivity() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let folder = try store.createFolder(name: "F")
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let old = try store.createConversation(title: "old", createdAt: start)
        let middle = try store.createConversation(title: "middle", folderId: folder.id, createdAt: start + 10)
        let new = try store.createConversation(title: "new", createdAt: start + 20)
        let pinnedLater = try store.createConversation(title: "pinned later", createdAt: start + 30)
        try store.pin(conversationId: old.id)
        try store.pin(conversationId: pinnedLater.id)
        try store.pin(conversationId: old.id)

        #expect(try store.conversations().map(\.title) == ["old", "pinned later", "new", "middle"])
        #expect(try store.conversations(limit: 2).map(\.title) == ["old", "pinned later"])
        #expect(try store.conversations(pinnedOnly: true).map(\.title) == ["old", "pinned later"])
        #expect(try store.conversations(folderId: .some(nil)).map(\.title) == ["old", "pinned later", "new"])
        #expect(try store.conversations(folderId: folder.id).map(\.title) == ["middle"])

        try store.appendMessage(conversationId: middle.id, role: .user, MessageContent(text: "bump"))
        #expect(try store.mostRecentConversation()?.id == middle.id)
        #expect(try store.conversations().map(\.title) == ["old", "pinned later", "middle", "new"])

        try store.unpin(conversationId: pinnedLater.id)
        #expect(try store.conversations().map(\.title) == ["old", "middle", "pinned later", "new"])
        #expect(try store.conversation(id: pinnedLater.id)?.pinOrder == nil)
        #expect(try store.statistics().pinned == 1)
        _ = new
    }

    @Test func renameMoveDraftContinuationAndUpdate() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let folder = try store.createFolder(name: "Archive")
        let conversation = try store.createConversation(title: "Draft me")
        try store.rename(conversationId: conversation.id, to: "Renamed")
        try store.move(conversationId: conversation.id, to: folder.id)
        try store.setDraft(conversationId: conversation.id, text: "half a thought")
        try store.setContinuation(
            conversationId: conversation.id, serverURL: "http://127.0.0.1:1234", responseId: "resp_1")
        var stored = try #require(try store.conversation(id: conversation.id))
        #expect(stored.title == "Renamed")
        #expect(stored.folderId == folder.id)
        #expect(stored.draft == "half a thought")
        #expect(stored.serverURL == "http://127.0.0.1:1234")
        #expect(stored.lastResponseId == "resp_1")
        #expect(try store.statistics().drafts == 1)

        stored.settings.temperature = 0.2
        stored.modelKey = "other"
        stored.draft = ""
        stored.folderId = nil
        try store.updateConversation(stored)
        #expect(try store.conversation(id: conversation.id) == stored)
        #expect(try store.statistics().drafts == 0)

        #expect(throws: LibraryError.notFound(kind: "folder", reference: "42")) {
            try store.move(conversationId: conversation.id, to: 42)
        }
        #expect(throws: LibraryError.notFound(kind: "conversation", reference: "nope")) {
            try store.setDraft(conversationId: "nope", text: "x")
        }
    }

    /// Two faces on one chat: a face that saves its input as it was shown, or emptied, does not undo the draft the
    /// other saved since; what the user changed is saved.
    @Test func aDraftAnotherClientSavedIsNotUndoneByInputLeftAsShown() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let id = try store.createConversation(title: "Shared").id
        try store.setDraft(conversationId: id, text: "first thought")
        // A face showed "first thought"; another saved a newer draft meanwhile.
        try store.setDraft(conversationId: id, text: "second thought")
        #expect(
            try store.replaceDraft(conversationId: id, with: "first thought", shown: "first thought")
                == "second thought")
        #expect(try store.replaceDraft(conversationId: id, with: "", shown: "first thought") == "second thought")
        #expect(try store.conversation(id: id)?.draft == "second thought")
        // What the user typed is saved, and an input emptied of the draft it showed clears it.
        #expect(try store.replaceDraft(conversationId: id, with: "third", shown: "first thought") == "third")
        #expect(try store.replaceDraft(conversationId: id, with: "", shown: "third") == "")
        #expect(try store.conversation(id: id)?.draft == "")
        #expect(throws: LibraryError.notFound(kind: "conversation", reference: "nope")) {
            try store.replaceDraft(conversationId: "nope", with: "x", shown: "")
        }
    }

    @Test func resolvesIdsPrefixesAndTitles() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let first = try store.createConversation(title: "Rust lifetimes")
        let second = try store.createConversation(title: "Über Swift")
        let twin1 = try store.createConversation(title: "Twins")
        let twin2 = try store.createConversation(title: "twins")

        #expect(try store.resolveConversation(first.id) == first)
        #expect(try store.resolveConversation(first.id.uppercased()) == first)
        #expect(try store.resolveConversation("rust LIFETIMES") == first)
        #expect(try store.resolveConversation("über swift") == second)
        let uniquePrefix = try #require(
            (1...16).lazy.map { String(first.id.prefix($0)) }.first { prefix in
                [second, twin1, twin2].allSatisfy { !$0.id.hasPrefix(prefix) }
            })
        #expect(try store.resolveConversation(uniquePrefix) == first)

        #expect(throws: LibraryError.notFound(kind: "conversation", reference: "nothing here")) {
            try store.resolveConversation("nothing here")
        }
        do {
            _ = try store.resolveConversation("TWINS")
            Issue.record("an ambiguous title resolved")
        } catch let LibraryError.ambiguousConversation(reference, candidates) {
            #expect(reference == "TWINS")
            #expect(Set(candidates.map(\.id)) == [twin1.id, twin2.id])
            let message = LibraryError.ambiguousConversation(reference: reference, candidates: candidates).description
            #expect(message.contains(twin1.id) && message.contains(twin2.id))
        }
    }

    @Test func anAmbiguousPrefixListsItsCandidates() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        var byFirstDigit: [Character: [Conversation]] = [:]
        while byFirstDigit.values.allSatisfy({ $0.count < 2 }) {
            let conversation = try store.createConversation(title: "t")
            byFirstDigit[conversation.id.first!, default: []].append(conversation)
        }
        let (digit, shared) = byFirstDigit.first { $0.value.count >= 2 }!
        #expect {
            try store.resolveConversation(String(digit))
        } throws: { error in
            guard case LibraryError.ambiguousConversation(_, let candidates) = error else { return false }
            return Set(shared.map(\.id)).isSubset(of: Set(candidates.map(\.id)))
        }
    }

    @Test func deletingAConversationRemovesEverythingUnderIt() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let kept = try store.createConversation(title: "kept")
        try store.appendMessage(conversationId: kept.id, role: .user, MessageContent(text: "stay"))
        let doomed = try store.createConversation(title: "doomed")
        let message = try store.appendMessage(
            conversationId: doomed.id, role: .assistant, MessageContent(text: "unique-word-zebra"))
        try store.replaceToolCalls(
            messageId: message.id,
            [
                ToolCallRecord(messageId: message.id, position: 0, name: "f", argumentsJSON: "{}", status: .succeeded)
            ])
        try store.addAttachment(messageId: message.id, name: "a.txt", mimeType: "text/plain", bytes: [1, 2, 3])

        try store.delete(conversationId: doomed.id)
        #expect(try store.conversation(id: doomed.id) == nil)
        #expect(try store.message(id: message.id) == nil)
        #expect(try store.toolCalls(messageId: message.id).isEmpty)
        #expect(try store.attachments(messageId: message.id).isEmpty)
        #expect(try store.search("zebra", limit: 10).isEmpty)
        #expect(try store.search("doomed", limit: 10).isEmpty)
        let statistics = try store.statistics()
        #expect(statistics.conversations == 1 && statistics.messages == 1 && statistics.attachments == 0)
        #expect(throws: LibraryError.notFound(kind: "conversation", reference: doomed.id)) {
            try store.delete(conversationId: doomed.id)
        }
    }

    @Test func anImportedConversationKeepsItsIdDatesPinAndDraft() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let imported = Conversation(
            id: "0123456789abcdef0123", title: "Imported", pinned: true, pinOrder: 7,
            createdAt: Date(timeIntervalSince1970: 1_000), updatedAt: Date(timeIntervalSince1970: 2_000),
            modelKey: "m", settings: ConversationSettings(temperature: 1), serverURL: "http://host:1234",
            lastResponseId: "resp_x", draft: "unsent")
        try store.insertConversation(imported)
        #expect(try store.conversation(id: imported.id) == imported)
        #expect(try store.resolveConversation("01234") == imported)
        #expect(throws: LibraryError.self) { try store.insertConversation(imported) }
    }
}
