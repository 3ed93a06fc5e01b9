import Foundation
import Testing

@testable import Console

@Suite struct StateDirectoryTests {
    /// The history holds what the user typed: its directory is the user's alone.
    @Test func theHistoryDirectoryIsCreatedPrivate() throws {
        let path = FileManagerPath.temporary("llmster/history")
        HistoryFile(path: path).append("a secret question")
        let directory = (path as NSString).deletingLastPathComponent
        let mode = try #require(
            try FileManager.default.attributesOfItem(atPath: directory)[.posixPermissions] as? NSNumber
        ).intValue
        #expect(mode & 0o777 == 0o700, "mode \(String(mode, radix: 8))")
    }
}
