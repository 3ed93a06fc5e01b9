import Foundation
import Library
import Testing

@Suite struct TransferTests {
    private func exported(_ store: LibraryStore, _ library: TemporaryLibrary, title: String = "SSE deep dive") throws
        -> String
    {
        let path = library.directory + "/chat.llmster"
        try store.exportConversation(id: try store.resolveConversation(title).id, to: path)
        return path
    }

    @Test func anExportImportedIntoAnotherLibraryIsTheSameConversation() throws {
        let source = TemporaryLibrary()
        let store = try source.open()
        try RichLibrary.fill(store)
        let original = try store.resolveConversation("SSE deep dive")
        let file = try exported(store, source)

        let summary = try LibraryStore.inspectConversationFile(at: file)
        #expect(summary.title == "SSE deep dive" && summary.folder == "Work/Research")
        #expect(summary.messages == 3 && summary.attachments == 2)
        #expect(summary.serverURL == "http://127.0.0.1:1234" && summary.responseId == "resp_1")

        let target = TemporaryLibrary()
        let other = try target.open()
        let imported = try other.importConversation(from: file)
        #expect(imported.id != original.id)
        #expect(try RichLibrary.content(of: imported.id, in: other) == RichLibrary.content(of: original.id, in: store))
    }

    /// A file exported from this very library names a conversation it still holds: refused, not silently duplicated.
    @Test func importingAnExportIntoItsOwnLibraryIsRefusedUnlessACopyIsAsked() throws {
        let source = TemporaryLibrary()
        let store = try source.open()
        try RichLibrary.fill(store)
        let original = try store.resolveConversation("SSE deep dive")
        let file = try exported(store, source)
        #expect(throws: ArchiveError.alreadyImported(conversationId: original.id, title: original.title)) {
            try store.importConversation(from: file)
        }
        let before = try store.conversations().count
        let copy = try store.importConversation(from: file, options: .init(asNew: true))
        #expect(copy.id != original.id)
        #expect(try store.conversations().count == before + 1)
    }

    @Test func importingTheSameExportTwiceIsRefusedUnlessACopyIsAsked() throws {
        let source = TemporaryLibrary()
        let store = try source.open()
        try RichLibrary.fill(store)
        let file = try exported(store, source)
        let target = TemporaryLibrary()
        let other = try target.open()
        let first = try other.importConversation(from: file)
        #expect(throws: ArchiveError.alreadyImported(conversationId: first.id, title: "SSE deep dive")) {
            try other.importConversation(from: file)
        }
        #expect(try other.conversations().count == 1)
        let copy = try other.importConversation(from: file, options: .init(asNew: true))
        #expect(copy.id != first.id)
        #expect(try other.conversations().count == 2)
    }

    @Test func droppingTheContinuationAndChoosingAFolder() throws {
        let source = TemporaryLibrary()
        let store = try source.open()
        try RichLibrary.fill(store)
        let file = try exported(store, source)
        let target = TemporaryLibrary()
        let other = try target.open()
        let imported = try other.importConversation(
            from: file, options: .init(keepContinuation: false, folder: "Inbox"))
        #expect(imported.serverURL == nil && imported.lastResponseId == nil)
        #expect(try other.folderPath(id: try #require(imported.folderId)) == "Inbox")
    }

    @Test(arguments: ["version", "hash", "missing field", "oversized", "truncated", "not an archive"])
    func aDamagedFileIsRejectedAndNothingImported(damage: String) throws {
        let source = TemporaryLibrary()
        let store = try source.open()
        try RichLibrary.fill(store)
        let file = try exported(store, source)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        switch damage {
        case "version": bytes[8] = 2
        case "hash":
            let marker = Array("\"sha256\":\"".utf8)
            let at = try #require(bytes.firstRange(of: marker)).upperBound
            bytes[at] = bytes[at] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        case "missing field":
            let marker = Array("\"title\":".utf8)
            let at = try #require(bytes.firstRange(of: marker)).lowerBound
            bytes.replaceSubrange(at..<(at + 2), with: Array("\"x".utf8))
        case "oversized": bytes.replaceSubrange(15..<19, with: [0x7F, 0xFF, 0xFF, 0xFF])
        case "truncated": bytes.removeLast(40)
        default: bytes[0] = UInt8(ascii: "X")
        }
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let target = TemporaryLibrary()
        let other = try target.open()
        #expect(throws: ArchiveError.self) { try other.importConversation(from: file) }
        #expect(throws: ArchiveError.self) { try LibraryStore.inspectConversationFile(at: file) }
        let statistics = try other.statistics()
        #expect(statistics.conversations == 0 && statistics.messages == 0 && statistics.folders == 0)
    }

    @Test func theErrorSaysWhatIsWrong() throws {
        let source = TemporaryLibrary()
        let store = try source.open()
        try RichLibrary.fill(store)
        let file = try exported(store, source)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        bytes[8] = 9
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        #expect(throws: ArchiveError.unsupportedVersion(found: 9, supported: 1)) {
            try LibraryStore.inspectConversationFile(at: file)
        }
    }
}
