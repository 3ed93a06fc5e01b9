import Foundation
import Library
import Testing

@Suite struct BackupTests {
    private let password = Array("correct horse".utf8)

    @Test(arguments: [false, true])
    func aRestoredBackupIsTheSameLibrary(encrypted: Bool) throws {
        let source = TemporaryLibrary()
        let store = try source.open()
        try RichLibrary.fill(store)
        let archive = source.directory + "/library.backup"
        try LibraryBackup.write(
            libraryPath: source.path, to: archive, password: encrypted ? password : nil, limits: .interactive)
        #expect(try LibraryBackup.isEncrypted(archive) == encrypted)

        let target = TemporaryLibrary()
        let previous = try target.open()
        try previous.createConversation(title: "to be replaced")
        let prepared = try LibraryBackup.prepareRestore(
            archive: archive, password: encrypted ? password : nil, libraryPath: target.path)
        #expect(prepared.statistics == (try store.statistics()))
        #expect(try previous.conversations().map(\.title) == ["to be replaced"])
        let kept = try #require(try prepared.commit())
        #expect(try RichLibrary.snapshot(try target.open()) == RichLibrary.snapshot(store))
        #expect(try LibraryStore(path: kept).conversations().map(\.title) == ["to be replaced"])
    }

    @Test func aWrongOrMissingPasswordLeavesTheLibraryUntouched() throws {
        let source = TemporaryLibrary()
        try RichLibrary.fill(try source.open())
        let archive = source.directory + "/library.backup"
        try LibraryBackup.write(libraryPath: source.path, to: archive, password: password, limits: .interactive)
        let target = TemporaryLibrary()
        try target.open().createConversation(title: "mine")
        #expect(throws: ArchiveError.wrongPasswordOrDamaged) {
            try LibraryBackup.prepareRestore(archive: archive, password: Array("wrong".utf8), libraryPath: target.path)
        }
        #expect(throws: ArchiveError.passwordRequired) {
            try LibraryBackup.prepareRestore(archive: archive, password: nil, libraryPath: target.path)
        }
        #expect(try target.open().conversations().map(\.title) == ["mine"])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: target.directory + "/data")
        #expect(!leftovers.contains { $0.contains("restoring") })
    }

    @Test func everyFlippedRegionOrTruncationOfAnEncryptedArchiveIsRejected() throws {
        let source = TemporaryLibrary()
        try RichLibrary.fill(try source.open(), attachmentBytes: 150_000)
        let archive = source.directory + "/library.backup"
        try LibraryBackup.write(libraryPath: source.path, to: archive, password: password, limits: .interactive)
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: archive)))
        #expect(original.count > 150_000)
        let header = 10 + 16 + 16 + 24
        let offsets = [
            0, 8, 9, 12, 30, 40, header - 1, header, header + 2, header + 4, header + 70_000,
            original.count / 2, original.count - 20, original.count - 1
        ]
        let target = TemporaryLibrary()
        try target.open().createConversation(title: "mine")
        let damaged = source.directory + "/damaged.backup"
        for offset in offsets {
            var bytes = original
            bytes[offset] ^= 0x20
            try Data(bytes).write(to: URL(fileURLWithPath: damaged))
            #expect(throws: ArchiveError.self, "flipped byte at \(offset)") {
                try LibraryBackup.prepareRestore(archive: damaged, password: password, libraryPath: target.path)
            }
        }
        for length in [0, 5, header, header + 3, header + 40, original.count / 3, original.count - 1] {
            try Data(original.prefix(length)).write(to: URL(fileURLWithPath: damaged))
            #expect(throws: ArchiveError.self, "truncated to \(length)") {
                try LibraryBackup.prepareRestore(archive: damaged, password: password, libraryPath: target.path)
            }
        }
        #expect(try target.open().conversations().map(\.title) == ["mine"])
    }

    @Test func hostileDeclaredSizesAreRefusedBeforeAllocating() throws {
        let source = TemporaryLibrary()
        try RichLibrary.fill(try source.open())
        let archive = source.directory + "/library.backup"
        try LibraryBackup.write(libraryPath: source.path, to: archive, password: nil)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: archive)))
        // The first frame's length word, then the first record's length inside it.
        let frameLength = Array(bytes[10..<14])
        bytes.replaceSubrange(10..<14, with: [0x7F, 0xFF, 0xFF, 0xFF])
        try Data(bytes).write(to: URL(fileURLWithPath: archive))
        let target = TemporaryLibrary()
        #expect(throws: ArchiveError.tooLarge(part: "a frame", size: 0x7FFF_FFFF, limit: 65_536)) {
            try LibraryBackup.prepareRestore(archive: archive, password: nil, libraryPath: target.path)
        }
        bytes.replaceSubrange(10..<14, with: frameLength)
        bytes.replaceSubrange(15..<19, with: [0xFF, 0xFF, 0xFF, 0xF0])
        try Data(bytes).write(to: URL(fileURLWithPath: archive))
        #expect(throws: ArchiveError.tooLarge(part: "a record", size: 0xFFFF_FFF0, limit: 64 * 1024 * 1024)) {
            try LibraryBackup.prepareRestore(archive: archive, password: nil, libraryPath: target.path)
        }
        // Hostile key derivation limits in an encrypted header are refused before deriving.
        try LibraryBackup.write(libraryPath: source.path, to: archive, password: password, limits: .interactive)
        bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: archive)))
        bytes.replaceSubrange(34..<42, with: [0x7F, 0, 0, 0, 0, 0, 0, 0])
        try Data(bytes).write(to: URL(fileURLWithPath: archive))
        #expect(throws: ArchiveError.damaged("the header's key derivation limits are out of range")) {
            try LibraryBackup.prepareRestore(archive: archive, password: password, libraryPath: target.path)
        }
    }

    @Test func theDefaultUsesModerateLimits() throws {
        let source = TemporaryLibrary()
        try source.open().createConversation(title: "one")
        let archive = source.directory + "/library.backup"
        try LibraryBackup.write(libraryPath: source.path, to: archive, password: password)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: archive)))
        let memory = bytes[34..<42].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(memory == KeyDerivationLimits.moderate.memory)
        let target = TemporaryLibrary()
        let prepared = try LibraryBackup.prepareRestore(archive: archive, password: password, libraryPath: target.path)
        #expect(prepared.statistics.conversations == 1)
        prepared.discard()
        #expect(!FileManager.default.fileExists(atPath: prepared.asidePath))
    }
}
