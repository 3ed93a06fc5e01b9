import Foundation
import Testing

@testable import Library

/// Alternatives: replaced answers and edited turns stay in the library off the current branch.
@Suite struct BranchTests {
    /// A conversation "q1 → a1 → q2 → a2", where each answer got a response id on `server`.
    struct Exchange {
        let store: LibraryStore
        let conversationId: String
        let messages: [Message]

        init(_ library: TemporaryLibrary) throws {
            store = try library.open()
            conversationId = try store.createConversation(title: "Branches").id
            var appended: [Message] = []
            for (index, text) in ["q1", "a1", "q2", "a2"].enumerated() {
                let role: MessageRole = index.isMultiple(of: 2) ? .user : .assistant
                let message = try store.appendMessage(
                    conversationId: conversationId, role: role,
                    MessageContent(text: text, responseId: role == .assistant ? "resp_\(text)" : nil))
                if role == .assistant {
                    try store.setContinuation(
                        conversationId: conversationId, serverURL: "http://server:1234", responseId: "resp_\(text)")
                }
                appended.append(message)
            }
            messages = appended
        }
    }

    @Test func aReplyRecordsTheContinuationItWasAskedIn() throws {
        let library = TemporaryLibrary()
        let exchange = try Exchange(library)
        let saved = try exchange.store.messages(conversationId: exchange.conversationId)
        #expect(saved[1].parentResponseId == nil, "the first reply was asked in a fresh context")
        #expect(saved[3].parentResponseId == "resp_a1")
        #expect(saved[3].serverURL == "http://server:1234")
        #expect(saved.map(\.parentId) == [nil, saved[0].id, saved[1].id, saved[2].id])
    }

    @Test func aReplacedAnswerStaysAsAnAlternativeOutOfTheTranscriptAndSearch() throws {
        let library = TemporaryLibrary()
        let exchange = try Exchange(library)
        let store = exchange.store
        try store.rewindBranch(conversationId: exchange.conversationId, to: exchange.messages[2].id)
        let again = try store.appendMessage(
            conversationId: exchange.conversationId, role: .assistant, MessageContent(text: "a2 again"))
        #expect(
            try store.messages(conversationId: exchange.conversationId).map(\.text) == ["q1", "a1", "q2", "a2 again"])
        let alternatives = try store.alternatives(messageId: again.id)
        #expect(alternatives.map(\.text) == ["a2", "a2 again"])
        #expect(alternatives.map(\.onBranch) == [false, true])
        #expect(try store.search("a2").compactMap(\.messageId) == [again.id], "search sees the current branch only")

        let branch = try store.chooseAlternative(messageId: exchange.messages[3].id)
        #expect(branch.map(\.text) == ["q1", "a1", "q2", "a2"])
        #expect(
            try store.conversation(id: exchange.conversationId)?.lastResponseId == "resp_a2",
            "the conversation continues from the chosen answer")
    }

    @Test func anEditedTurnKeepsTheOldTurnAndItsAnswersAsAnAlternative() throws {
        let library = TemporaryLibrary()
        let exchange = try Exchange(library)
        let store = exchange.store
        try store.rewindBranch(conversationId: exchange.conversationId, to: exchange.messages[1].id)
        let edited = try store.appendMessage(
            conversationId: exchange.conversationId, role: .user, MessageContent(text: "q2 edited"))
        #expect(try store.messages(conversationId: exchange.conversationId).map(\.text) == ["q1", "a1", "q2 edited"])
        #expect(try store.alternatives(messageId: edited.id).map(\.text) == ["q2", "q2 edited"])
        let branch = try store.chooseAlternative(messageId: exchange.messages[2].id)
        #expect(branch.map(\.text) == ["q1", "a1", "q2", "a2"], "choosing the old turn brings its answer back")
    }

    @Test func exportAndImportCarryAlternatives() throws {
        let library = TemporaryLibrary()
        let exchange = try Exchange(library)
        let store = exchange.store
        try store.rewindBranch(conversationId: exchange.conversationId, to: exchange.messages[2].id)
        try store.setContinuation(
            conversationId: exchange.conversationId, serverURL: "http://server:1234", responseId: "resp_a1")
        try store.appendMessage(
            conversationId: exchange.conversationId, role: .assistant, MessageContent(text: "a2 again"))
        let file = library.directory + "/branches.llmster"
        try store.exportConversation(id: exchange.conversationId, to: file)

        let other = TemporaryLibrary()
        let imported = try other.open().importConversation(from: file)
        let copy = try other.open()
        let messages = try copy.messages(conversationId: imported.id)
        #expect(messages.map(\.text) == ["q1", "a1", "q2", "a2 again"])
        #expect(messages[3].parentResponseId == "resp_a1")
        #expect(try copy.alternatives(messageId: messages[3].id).map(\.text) == ["a2", "a2 again"])
    }

    @Test func aFileWrittenBeforeBranchesImportsAsOneBranchInOrder() throws {
        let library = TemporaryLibrary()
        let exchange = try Exchange(library)
        let conversation = try #require(try exchange.store.conversation(id: exchange.conversationId))
        var document = try exchange.store.document(for: conversation)
        for index in document.messages.indices {
            document.messages[index].parentId = nil
            document.messages[index].parentResponseId = nil
            document.messages[index].serverURL = nil
        }
        let file = library.directory + "/old.llmster"
        try writeOutput(to: file) { sink in
            let writer = try ArchiveWriter(kind: .conversation, sink: sink, password: nil, limits: .interactive)
            try writer.record(
                .manifest, json: ExportManifest(format: ExportManifest.formatName, exportId: "old", exportedAt: 1))
            try writer.record(.conversation, json: document)
            try writer.finish()
        }
        let json = try String(decoding: JSONEncoder().encode(document), as: UTF8.self)
        #expect(!json.contains("parentId"), "the file has no field of the new version")

        let other = TemporaryLibrary()
        let store = try other.open()
        let imported = try store.importConversation(from: file)
        let messages = try store.messages(conversationId: imported.id)
        #expect(messages.map(\.text) == ["q1", "a1", "q2", "a2"])
        #expect(messages.dropFirst().map(\.parentId) == messages.dropLast().map(\.id))
    }

    @Test func aBackupRestoresAlternativesAndParentContinuations() throws {
        let library = TemporaryLibrary()
        let exchange = try Exchange(library)
        try exchange.store.rewindBranch(conversationId: exchange.conversationId, to: exchange.messages[2].id)
        let again = try exchange.store.appendMessage(
            conversationId: exchange.conversationId, role: .assistant,
            MessageContent(text: "a2 again"))
        let archive = library.directory + "/library.backup"
        try LibraryBackup.write(libraryPath: library.path, to: archive, password: nil, limits: .interactive)

        let target = TemporaryLibrary()
        try LibraryBackup.prepareRestore(archive: archive, password: nil, libraryPath: target.path).commit()
        let restored = try target.open()
        let messages = try restored.messages(conversationId: exchange.conversationId)
        #expect(messages == (try exchange.store.messages(conversationId: exchange.conversationId)))
        #expect(try restored.alternatives(messageId: again.id).map(\.id) == [exchange.messages[3].id, again.id])
    }

    @Test func aLibraryOfTheSchemaBeforeBranchesUpgradesInPlace() throws {
        let library = TemporaryLibrary()
        try FileManager.default.createDirectory(atPath: library.directory + "/data", withIntermediateDirectories: true)
        do {
            let connection = try SQLiteConnection(path: library.path)
            for step in Schema.migrations[..<2] { try connection.execute(step) }
            try connection.execute("PRAGMA user_version = 2")
            try connection.execute(
                """
                INSERT INTO conversations (id, title, created_at, updated_at, server_url, last_response_id)
                    VALUES ('c1', 'Old', 1, 1, 'http://old:1234', 'resp_2');
                INSERT INTO messages (id, conversation_id, position, role, text, status, response_id, created_at, updated_at)
                    VALUES ('m0', 'c1', 0, 'user', 'first', 'complete', NULL, 1, 1),
                           ('m1', 'c1', 1, 'assistant', 'one', 'complete', 'resp_1', 1, 1),
                           ('m2', 'c1', 2, 'user', 'second', 'complete', NULL, 1, 1),
                           ('m3', 'c1', 3, 'assistant', 'two', 'complete', 'resp_2', 1, 1);
                """)
        }
        let store = try library.open()
        #expect(try store.connection.first("PRAGMA user_version") { $0.int(0) } == Schema.migrations.count)
        let messages = try store.messages(conversationId: "c1")
        #expect(messages.map(\.text) == ["first", "one", "second", "two"])
        #expect(messages.map(\.parentId) == [nil, "m0", "m1", "m2"])
        #expect(messages[3].parentResponseId == "resp_1", "an old reply's context is the reply before it")
        #expect(messages[1].parentResponseId == nil)
        #expect(messages[3].serverURL == "http://old:1234")
        try store.rewindBranch(conversationId: "c1", to: "m2")
        let again = try store.appendMessage(conversationId: "c1", role: .assistant, MessageContent(text: "two again"))
        #expect(try store.alternatives(messageId: again.id).map(\.id) == ["m3", again.id])
    }
}
