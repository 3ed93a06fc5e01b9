import Foundation
import HTTP
import LMStudio
import Library
import TestSupport
import Testing

@testable import Chat

/// `ChatSession.reopenLibrary`, which a restore runs around, in a process that starts children.
@Suite struct ReopenLibraryTests {
    /// A child being started holds a copy of each of its parent's descriptors until it executes its program (then the
    /// library lock's, opened close-on-exec, is closed). A reopen that let go of the lock and took it afresh would find
    /// that copy holding the old one and answer "in use" for a restore in a process that was starting an editor or a
    /// test's llmster at that moment (it failed one CI run).
    @Test func aChildBeingStartedWithACopyOfTheLockDoesNotMakeTheLibraryInUse() async throws {
        let sandbox = try Sandbox()
        let session = ChatSession(
            client: LMStudioClient(server: "http://127.0.0.1:9", token: nil, transport: CurlTransport()),
            library: try LibraryStore(path: sandbox.libraryPath), configuration: Configuration())
        let copy = try #require(Self.duplicateOfOpenFile(sandbox.libraryPath + ".lock"))
        defer { close(copy) }
        try await session.reopenLibrary { path in try LibraryBackup.checkNotInUse(libraryPath: path) }
        #expect(try await session.withLibrary { try $0.conversations().count } == 0, "the library is open again")
    }

    /// A new descriptor for the file this process has open at `path` (sharing its lock), as a starting child has.
    private static func duplicateOfOpenFile(_ path: String) -> Int32? {
        var wanted = stat()
        guard stat(path, &wanted) == 0,
            let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        else { return nil }
        for descriptor in names.compactMap({ Int32($0) }) {
            var status = stat()
            if fstat(descriptor, &status) == 0, status.st_dev == wanted.st_dev, status.st_ino == wanted.st_ino {
                let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
                if copy >= 0 { return copy }
            }
        }
        return nil
    }
}
