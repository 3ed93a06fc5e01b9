import Foundation
import TestSupport
import Testing

@testable import Library

/// Seeded fuzzing of the two archive readers: truncations, bit flips, and well-formed files carrying crafted numbers
/// and strings. Whatever the damage, reading never traps, a refusal is a readable error, and a refused file changes
/// nothing (a restore leaves no `*.restoring-*` files).
@Suite struct ArchiveFuzzTests {
    private static let iterations = 150

    /// Values a hostile file might put where llmster expects a number or a string.
    private static var craftedValues: [Any] {
        [
            NSNumber(value: Int64.max), NSNumber(value: Int64.min), NSNumber(value: -1), NSNumber(value: 0),
            NSNumber(value: 1e308), NSNumber(value: -1e308), NSNumber(value: 9_007_199_254_740_993 as Int64),
            NSNumber(value: 0.5), NSNumber(value: UInt64.max), "", "\u{0}", "\u{202E}\u{9B}2J", "../../etc/passwd",
            String(repeating: "x", count: 70_000), "{", "null", [Any](), [String: Any](), NSNull()
        ]
    }

    private enum Damage: CaseIterable { case truncate, flip, craft }

    /// `original` damaged one way, chosen by `generator`.
    private static func damaged(
        _ original: [UInt8], kind: ArchiveKind, path: String, using generator: inout SeededGenerator
    )
        throws -> (bytes: [UInt8], how: String)
    {
        switch Damage.allCases.randomElement(using: &generator)! {
        case .truncate:
            let length = Int.random(in: 0..<original.count, using: &generator)
            return (Array(original.prefix(length)), "truncated to \(length)")
        case .flip:
            var bytes = original
            let flips = Int.random(in: 1...3, using: &generator)
            var offsets: [Int] = []
            for _ in 0..<flips {
                let offset = Int.random(in: 0..<bytes.count, using: &generator)
                bytes[offset] ^= 1 << UInt8.random(in: 0...7, using: &generator)
                offsets.append(offset)
            }
            return (bytes, "bits flipped at \(offsets)")
        case .craft:
            try Data(original).write(to: URL(fileURLWithPath: path))
            var archive = try ArchiveRecords(kind: kind, path: path)
            let jsonRecords = archive.records.indices.filter { archive.records[$0].type != .attachment }
            let index = jsonRecords.randomElement(using: &generator)!
            var how = ""
            try archive.editJSON(at: index) { json in
                let leaves = JSONPathStep.leaves(of: json)
                guard let leaf = leaves.randomElement(using: &generator) else { return }
                let value = craftedValues.randomElement(using: &generator)!
                how = "record \(index) \(leaf.map(\.description).joined()) = \(String(describing: value).prefix(40))"
                json = JSONPathStep.setting(leaf, to: value, in: json)
            }
            try archive.write(to: path)
            return ([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), how)
        }
    }

    /// The error a refusal must be: one of the library's own, reading as a sentence.
    private static func isClear(_ error: any Error) -> Bool {
        (error is ArchiveError || error is LibraryError) && String(describing: error).count > 10
    }

    @Test func theTransferFileReaderSurvivesDamageAndCraftedValues() throws {
        let source = TemporaryLibrary()
        let store = try source.open()
        try RichLibrary.fill(store, attachmentBytes: 200)
        let exported = source.directory + "/chat.llmster"
        try store.exportConversation(id: try store.resolveConversation("SSE deep dive").id, to: exported)
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: exported)))

        let target = TemporaryLibrary()
        let library = try target.open()
        try library.createConversation(title: "mine")
        var generator = SeededGenerator(seed: 0x11_57e7)
        let file = source.directory + "/fuzzed.llmster"
        for iteration in 0..<Self.iterations {
            let before = try RichLibrary.snapshot(library)
            let (bytes, how) = try Self.damaged(original, kind: .conversation, path: file, using: &generator)
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            do {
                _ = try LibraryStore.inspectConversationFile(at: file)
                let imported = try library.importConversation(from: file, options: .init(asNew: true))
                // A harmless change imports; the result must still export and back up.
                try library.exportConversation(id: imported.id, to: source.directory + "/again.llmster")
                try LibraryBackup.write(libraryPath: target.path, to: source.directory + "/again.backup", password: nil)
                try library.delete(conversationId: imported.id)
            } catch {
                #expect(Self.isClear(error), "iteration \(iteration), \(how): \(error)")
                #expect(try RichLibrary.snapshot(library) == before, "iteration \(iteration), \(how)")
            }
        }
    }

    @Test func theBackupReaderSurvivesDamageAndCraftedValues() throws {
        let source = TemporaryLibrary()
        try RichLibrary.fill(try source.open(), attachmentBytes: 200)
        let backup = source.directory + "/library.backup"
        try LibraryBackup.write(libraryPath: source.path, to: backup, password: nil)
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: backup)))

        let target = TemporaryLibrary()
        try target.open().createConversation(title: "mine")
        let before = try RichLibrary.snapshot(try target.open())
        var generator = SeededGenerator(seed: 0xbac_4b)
        let file = source.directory + "/fuzzed.backup"
        for iteration in 0..<Self.iterations {
            let (bytes, how) = try Self.damaged(original, kind: .backup, path: file, using: &generator)
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            do {
                let prepared = try LibraryBackup.prepareRestore(archive: file, password: nil, libraryPath: target.path)
                prepared.discard()
            } catch {
                #expect(Self.isClear(error), "iteration \(iteration), \(how): \(error)")
            }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: target.directory + "/data")
            #expect(!leftovers.contains { $0.contains("restoring") }, "iteration \(iteration), \(how): \(leftovers)")
        }
        #expect(try RichLibrary.snapshot(try target.open()) == before)
    }
}
