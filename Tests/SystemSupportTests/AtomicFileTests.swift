import Foundation
import SystemSupport
import Testing

/// A fresh directory under the temporary directory, removed at the end of the test.
final class ScratchDirectory {
    let path = NSTemporaryDirectory() + "llmster-systemsupport-\(UUID().uuidString)"

    /// The names in `directory` (relative to the scratch directory).
    func names(in directory: String = "") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path + "/" + directory).sorted()
    }

    /// The permission bits of `name`.
    func mode(_ name: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path + "/" + name)[.posixPermissions] as? Int)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

private struct Refusal: Error {}

@Suite struct AtomicFileTests {
    @Test func createsTheFileWithItsPermissionsInPrivateNewDirectories() throws {
        let scratch = ScratchDirectory()
        try AtomicFile.write(Array("secret\n".utf8), to: scratch.path + "/state/llmster/history", permissions: 0o600)
        #expect(try String(contentsOfFile: scratch.path + "/state/llmster/history", encoding: .utf8) == "secret\n")
        #expect(try scratch.mode("state/llmster/history") == 0o600)
        #expect(try scratch.mode("state") == 0o700)
        #expect(try scratch.mode("state/llmster") == 0o700)
        #expect(try scratch.names(in: "state/llmster") == ["history"])
    }

    @Test func replacingKeepsNoTemporaryFileBehind() throws {
        let scratch = ScratchDirectory()
        let path = scratch.path + "/config"
        try AtomicFile.write(Array("one".utf8), to: path)
        try AtomicFile.write(Array("two".utf8), to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "two")
        #expect(try scratch.names() == ["config"])
    }

    @Test func aFailingWriterLeavesTheOldFileAndNoTemporaryFile() throws {
        let scratch = ScratchDirectory()
        let path = scratch.path + "/library.llmster"
        try AtomicFile.write(Array("old".utf8), to: path)
        #expect(throws: Refusal.self) {
            try AtomicFile.write(to: path) { fd in
                try Descriptor.writeAll(fd, Array("half of the new".utf8))
                throw Refusal()
            }
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        #expect(try scratch.names() == ["library.llmster"])
    }

    @Test func aFileSystemFailureNamesTheStepAndPathAndCleansUp() throws {
        let scratch = ScratchDirectory()
        let path = scratch.path + "/taken"
        try FileManager.default.createDirectory(atPath: path + "/inside", withIntermediateDirectories: true)
        let error = try #require(throws: AtomicFileError.self) {
            try AtomicFile.write(Array("text".utf8), to: path)
        }
        #expect(error.operation == "replace" && error.path == path)
        #expect(error.description.contains(path) && error.description.contains("previous file is unchanged"))
        #expect(try scratch.names() == ["taken"])
        #expect(try scratch.names(in: "taken") == ["inside"])
    }
}
