import Foundation
import TestSupport
import Testing

/// A password in the server URL (`http://user:PASSWORD@host`) stays in the configuration: the library, exports and
/// backups keep the URL without it, and the conversation still continues on that server.
@Suite(.spawnsProcesses) struct ServerPasswordStorageTests {
    @Test func theLibraryAndAnExportHoldNoPasswordAndTheConversationContinues() async throws {
        let fixture = try SimulatorFixture()
        let withPassword = fixture.url.replacingOccurrences(of: "://", with: "://ann:hunter2@")
        let cli = try CLI(server: withPassword)
        let first = try await cli.run(["ask", "echo:first turn"])
        #expect(first.status == 0, "\(first)")
        let second = try await cli.run(["ask", "-c", "echo:second turn"])
        #expect(second.status == 0, "\(second)")
        let requests = fixture.requests(to: "/api/v1/chat")
        #expect(requests.count == 2)
        #expect(requests.last?.field("previous_response_id") != nil, "the second turn continues the server context")

        let export = cli.sandbox.root + "/turns.llmster"
        let exported = try await cli.run(["export", "echo:first turn", "-o", export])
        #expect(exported.status == 0, "\(exported)")
        let backup = cli.sandbox.root + "/library.llmster-backup"
        let backedUp = try await cli.run(["backup", "-o", backup])
        #expect(backedUp.status == 0, "\(backedUp)")
        let libraryDirectory = (cli.sandbox.libraryPath as NSString).deletingLastPathComponent
        let libraryFiles = try FileManager.default.contentsOfDirectory(atPath: libraryDirectory).map {
            libraryDirectory + "/" + $0
        }
        #expect(libraryFiles.contains(cli.sandbox.libraryPath))
        for path in [export, backup] + libraryFiles {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                continue
            }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(bytes.range(of: Data("hunter2".utf8)) == nil, "\(path) holds the password")
            #expect(bytes.range(of: Data("ann:".utf8)) == nil, "\(path) holds the user name")
        }
        let dump = try await ProcessRunner.run("/usr/bin/sqlite3", [cli.sandbox.libraryPath, ".dump"], environment: [:])
        #expect(dump.status == 0 && dump.output.contains(fixture.url), "\(dump.errors)")
        #expect(!dump.output.contains("hunter2"))
    }
}
