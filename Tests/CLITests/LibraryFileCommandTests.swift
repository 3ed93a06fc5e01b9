import Foundation
import Library
import TestSupport
import Testing

/// The command line on a library it cannot or must not write.
@Suite(.spawnsProcesses) struct LibraryFileCommandTests {
    @Test func aReadOnlyLibraryIsListedWithANoteAndAChangeFailsClearly() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        try #require(try await cli.run(["ask", "first question"]).status == 0)
        #expect(chmod(cli.sandbox.libraryPath, 0o444) == 0)

        let listed = try await cli.run(["chats"])
        #expect(listed.status == 0, "\(listed)")
        #expect(listed.output.contains("first question"))
        #expect(listed.errors.contains("read-only"), "\(listed)")

        let asked = try await cli.run(["ask", "-c", "second question"])
        #expect(asked.status == 1, "\(asked)")
        #expect(asked.errors.contains("is read-only") && !asked.errors.contains("SQLite error"), "\(asked)")
    }

    @Test func aDeviceGivenAsTheLibraryIsRefused() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let result = try await cli.run(["--library", "/dev/null", "chats"])
        #expect(result.status == 1, "\(result)")
        #expect(result.errors.contains("/dev/null is not an llmster library (it is not a regular file)"), "\(result)")
    }
}
