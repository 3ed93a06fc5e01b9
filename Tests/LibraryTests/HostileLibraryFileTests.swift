import Foundation
import Testing

@testable import Library

/// What `--library` may point at: a device, another program's database, a read-only file.
@Suite struct HostileLibraryFileTests {
    @Test func aDeviceOrAFIFOIsRefusedWithoutCreatingAJournalBesideIt() throws {
        let journalExisted = FileManager.default.fileExists(atPath: "/dev/null-journal")
        #expect(throws: LibraryError.notALibrary(path: "/dev/null", reason: "it is not a regular file")) {
            try LibraryStore(path: "/dev/null")
        }
        if !journalExisted { #expect(!FileManager.default.fileExists(atPath: "/dev/null-journal")) }

        let library = TemporaryLibrary()
        try FileManager.default.createDirectory(atPath: library.directory + "/data", withIntermediateDirectories: true)
        #expect(mkfifo(library.path, 0o600) == 0)
        #expect(throws: LibraryError.notALibrary(path: library.path, reason: "it is not a regular file")) {
            try library.open()
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.directory + "/data") == ["library.sqlite3"])
    }

    @Test(arguments: ["unmarked", "versioned", "application id"])
    func anotherProgramsDatabaseIsLeftUntouched(kind: String) throws {
        let library = TemporaryLibrary()
        try FileManager.default.createDirectory(atPath: library.directory + "/data", withIntermediateDirectories: true)
        do {
            let connection = try SQLiteConnection(path: library.path)
            try connection.execute(
                "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('mine')")
            if kind == "versioned" { try connection.execute("PRAGMA user_version = 3") }
            if kind == "application id" { try connection.execute("PRAGMA application_id = 1234") }
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: library.path))
        let error = try #require(throws: LibraryError.self) { try library.open() }
        guard case .notALibrary(let path, _) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(path == library.path)
        #expect(
            error.description.contains("not an llmster library") && !error.description.contains("CREATE"), "\(error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: library.path)) == before, "not switched to WAL, not migrated")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: library.directory + "/data") == ["library.sqlite3"],
            "no -wal, -shm or lock file beside it")
    }

    @Test func aLibraryOpensMarkedAsLlmsters() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        #expect(try store.connection.first("PRAGMA application_id") { $0.int64(0) } == Schema.applicationId)
        #expect(!store.isReadOnly)
    }

    @Test func aReadOnlyLibraryIsListedAndRefusesChangesClearly() throws {
        let library = TemporaryLibrary()
        do {
            let store = try library.open()
            try store.createConversation(title: "kept")
        }
        #expect(chmod(library.path, 0o444) == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: library.path))
        let store = try library.open()
        #expect(store.isReadOnly)
        #expect(try store.conversations().map(\.title) == ["kept"])
        #expect(try store.recoverInterruptedReplies() == 0)
        let error = try #require(throws: LibraryError.self) { try store.createConversation(title: "new") }
        #expect(error.description.contains("is read-only") && error.description.contains(library.path), "\(error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: library.path)) == before)
    }
}
