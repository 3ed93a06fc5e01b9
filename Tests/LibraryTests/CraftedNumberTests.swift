import Foundation
import Testing

@testable import Library

/// Files whose numbers are out of range (dates near 2^63, negative orders, huge token counts) are refused before
/// anything is written, and a library that already holds such values still exports and backs up.
@Suite struct CraftedNumberTests {
    private static let exportFile = "/chat.llmster"

    /// An export of the rich library's main conversation, as records.
    private func export(in library: TemporaryLibrary) throws -> ArchiveRecords {
        let store = try library.open()
        try RichLibrary.fill(store, attachmentBytes: 100)
        let path = library.directory + Self.exportFile
        try store.exportConversation(id: try store.resolveConversation("SSE deep dive").id, to: path)
        return try ArchiveRecords(kind: .conversation, path: path)
    }

    @Test(arguments: [
        ("conversation", "createdAt", Int64.max, "createdAt"),
        ("conversation", "updatedAt", Int64.min, "updatedAt"),
        ("message", "updatedAt", Int64.max, "messages[1].updatedAt"),
        ("message", "createdAt", -Int64.max, "messages[1].createdAt"),
        ("manifest", "exportedAt", Int64.max, "exportedAt"),
        ("conversation", "pinOrder", -1, "pinOrder"),
        ("stats", "input_tokens", Int64.max, "messages[1].stats.input_tokens")
    ])
    func anOutOfRangeNumberIsRefusedNamingTheField(record: String, key: String, value: Int64, field: String) throws {
        let source = TemporaryLibrary()
        var archive = try export(in: source)
        let index = try #require(archive.first(record == "manifest" ? .manifest : .conversation))
        try archive.editJSON(at: index) { json in
            switch record {
            case "message":
                json = JSONPathStep.setting(
                    [.key("messages"), .index(1), .key(key)], to: NSNumber(value: value), in: json)
            case "stats":
                let stats = #"{"input_tokens":\#(value),"total_output_tokens":1}"#
                json = JSONPathStep.setting([.key("messages"), .index(1), .key("stats")], to: stats, in: json)
            default:
                json = JSONPathStep.setting([.key(key)], to: NSNumber(value: value), in: json)
            }
        }
        let file = source.directory + "/crafted.llmster"
        try archive.write(to: file)

        let target = TemporaryLibrary()
        let store = try target.open()
        try store.createConversation(title: "mine")
        let error = try #require(throws: ArchiveError.self) { try store.importConversation(from: file) }
        #expect("\(error)".contains(field) && "\(error)".contains("\(value)"), "\(error)")
        #expect(throws: ArchiveError.self) { try LibraryStore.inspectConversationFile(at: file) }
        #expect(try store.conversations().map(\.title) == ["mine"])
        #expect(try store.statistics().messages == 0)
    }

    @Test func aBackupWithACraftedDateIsRefusedAndLeavesNoRestoringFiles() throws {
        let source = TemporaryLibrary()
        try RichLibrary.fill(try source.open(), attachmentBytes: 100)
        let archivePath = source.directory + "/library.backup"
        try LibraryBackup.write(libraryPath: source.path, to: archivePath, password: nil)
        var archive = try ArchiveRecords(kind: .backup, path: archivePath)
        let index = try #require(archive.first(.conversation))
        try archive.editJSON(at: index) { json in
            json = JSONPathStep.setting(
                [.key("messages"), .index(0), .key("updatedAt")], to: NSNumber(value: Int64.max), in: json)
        }
        try archive.write(to: archivePath)

        let target = TemporaryLibrary()
        try target.open().createConversation(title: "mine")
        let error = try #require(throws: ArchiveError.self) {
            try LibraryBackup.prepareRestore(archive: archivePath, password: nil, libraryPath: target.path)
        }
        #expect("\(error)".contains("messages[0].updatedAt"), "\(error)")
        #expect(try target.open().conversations().map(\.title) == ["mine"])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: target.directory + "/data")
        #expect(!leftovers.contains { $0.contains("restoring") }, "\(leftovers)")
    }

    @Test func aLibraryHoldingOutOfRangeDatesStillExportsAndBacksUp() throws {
        let source = TemporaryLibrary()
        let store = try source.open()
        try RichLibrary.fill(store, attachmentBytes: 100)
        // What an earlier llmster wrote when it imported a crafted file.
        try store.connection.run("UPDATE messages SET updated_at = ?", [.integer(Int64.max)])
        try store.connection.run("UPDATE conversations SET created_at = ?", [.integer(Int64.min)])
        let conversation = try store.resolveConversation("SSE deep dive")
        #expect(conversation.createdAt.milliseconds == Date.storableMilliseconds.lowerBound)

        let file = source.directory + "/poisoned.llmster"
        try store.exportConversation(id: conversation.id, to: file)
        let backup = source.directory + "/poisoned.backup"
        try LibraryBackup.write(libraryPath: source.path, to: backup, password: nil)

        let target = TemporaryLibrary()
        let imported = try target.open().importConversation(from: file)
        #expect(imported.title == "SSE deep dive")
        let restored = try LibraryBackup.prepareRestore(archive: backup, password: nil, libraryPath: target.path)
        #expect(restored.statistics.conversations == 3)
        restored.discard()
    }

    @Test func aDateTooLargeForTheLibraryIsStoredAtTheLimitInsteadOfTrapping() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let far = try store.createConversation(title: "far", createdAt: Date(timeIntervalSince1970: 1e300))
        #expect(far.createdAt.milliseconds == Date.storableMilliseconds.upperBound)
        #expect(try store.conversation(id: far.id)?.createdAt == far.createdAt)
    }
}
