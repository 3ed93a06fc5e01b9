import Foundation
import Library
import TestSupport
import Testing

@Suite(.spawnsProcesses) struct TransferCommandTests {
    /// A conversation with a server context on `fixture`, exported from its own sandbox.
    private func exportedConversation(_ fixture: SimulatorFixture) async throws -> (cli: CLI, file: String) {
        let cli = try CLI(server: fixture.url)
        let asked = try await cli.run(["ask", "my favourite fruit is apples"])
        try #require(asked.status == 0, "\(asked)")
        let file = cli.sandbox.root + "/fruit.llmster"
        let exported = try await cli.run(["export", "my favourite fruit is apples", "-o", file])
        try #require(exported.status == 0, "\(exported)")
        return (cli, file)
    }

    @Test func anImportedConversationContinuesTheServerContextInAnotherLibrary() async throws {
        let fixture = try SimulatorFixture()
        let (source, file) = try await exportedConversation(fixture)
        defer { withExtendedLifetime(source) {} }
        let elsewhere = try CLI(server: fixture.url)
        let imported = try await elsewhere.run(["import", file])
        #expect(imported.status == 0, "same server: no question, even without a terminal\n\(imported)")
        #expect(imported.output.contains("Imported \"my favourite fruit is apples\""))
        let next = try await elsewhere.run(["ask", "-c", "please recall"])
        #expect(next.status == 0, "\(next)")
        #expect(next.output.contains(#"Earlier you said: "my favourite fruit is apples""#))
        let requests = fixture.requests(to: "/api/v1/chat")
        #expect(requests.last?.field("previous_response_id")?.hasPrefix("resp_") == true)

        let again = try await elsewhere.run(["import", file])
        #expect(again.status == 1 && again.errors.contains("already holds this conversation"), "\(again)")
    }

    @Test func aDifferentServerNeedsAnAnswerOrAFlag() async throws {
        let fixture = try SimulatorFixture()
        let (source, file) = try await exportedConversation(fixture)
        defer { withExtendedLifetime(source) {} }
        let other = try CLI(server: "http://127.0.0.1:\(unusedPort())")
        let refused = try await other.run(["import", file])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.errors.contains("--yes") && refused.errors.contains("--drop-continuation"))
        #expect(try LibraryStore(path: other.sandbox.libraryPath).conversations().isEmpty, "nothing imported")

        #expect(try await other.run(["import", "--drop-continuation", file]).status == 0)
        let dropped = try #require(try LibraryStore(path: other.sandbox.libraryPath).conversations().first)
        #expect(dropped.serverURL == nil && dropped.lastResponseId == nil)

        let keeper = try CLI(server: "http://127.0.0.1:\(unusedPort())")
        #expect(try await keeper.run(["import", "--yes", file]).status == 0)
        let kept = try #require(try LibraryStore(path: keeper.sandbox.libraryPath).conversations().first)
        #expect(kept.serverURL == fixture.url && kept.lastResponseId?.hasPrefix("resp_") == true)
    }

    @Test func theQuestionIsAskedOnATerminalExactlyWhenTheServersDiffer() async throws {
        let fixture = try SimulatorFixture()
        let (source, file) = try await exportedConversation(fixture)
        defer { withExtendedLifetime(source) {} }
        let llmster = try BuiltProduct.path("llmster")
        func onTerminal(_ cli: CLI, answer: String) async throws -> ProcessResult {
            try await ProcessRunner.run(
                "/usr/bin/script", ["-qec", "'\(llmster)' import '\(file)'", "/dev/null"], environment: cli.environment,
                input: answer + "\n")
        }
        let other = try CLI(server: "http://127.0.0.1:\(unusedPort())")
        let asked = try await onTerminal(other, answer: "d")
        #expect(asked.status == 0, "\(asked)")
        #expect(asked.output.contains("Keep or drop? [k/d]"))
        #expect(try LibraryStore(path: other.sandbox.libraryPath).conversations().first?.lastResponseId == nil)

        let same = try CLI(server: fixture.url)
        let silent = try await onTerminal(same, answer: "d")
        #expect(silent.status == 0, "\(silent)")
        #expect(!silent.output.contains("Keep or drop?"))
        #expect(try LibraryStore(path: same.sandbox.libraryPath).conversations().first?.lastResponseId != nil)
    }

    @Test func exportToStandardOutputAndByTitle() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["ask", "Hello, World!"]).status == 0)
        let file = cli.sandbox.root + "/piped.llmster"
        let piped = try await ProcessRunner.run(
            "/bin/sh", ["-c", "'\(try BuiltProduct.path("llmster"))' export 'Hello, World!' -o - > '\(file)'"],
            environment: cli.environment)
        #expect(piped.status == 0, "\(piped)")
        let copy = try CLI(server: fixture.url)
        let imported = try await copy.run(["import", file])
        #expect(imported.status == 0 && imported.output.contains("\"Hello, World!\""), "\(imported)")
        let named = try await ProcessRunner.run(
            "/bin/sh",
            ["-c", "cd '\(cli.sandbox.root)' && '\(try BuiltProduct.path("llmster"))' export 'Hello, World!'"],
            environment: cli.environment)
        #expect(named.status == 0, "\(named)")
        #expect(
            FileManager.default.fileExists(atPath: cli.sandbox.root + "/hello-world.llmster"), "named after the title")
        let missing = try await cli.run(["export", "no such chat"])
        #expect(missing.status == 5, "\(missing)")
    }

    @Test func backupAndRestoreWithAPasswordFile() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["ask", "keep this"]).status == 0)
        try cli.sandbox.write("s3cret\n", to: "password")
        let archive = cli.sandbox.root + "/library.backup"
        let backup = try await cli.run(["backup", "-o", archive, "--password-file", cli.sandbox.root + "/password"])
        #expect(backup.status == 0, "\(backup)")
        #expect(
            !(try String(decoding: Data(contentsOf: URL(fileURLWithPath: archive)), as: UTF8.self)).contains(
                "keep this"))

        let target = try CLI(server: fixture.url)
        #expect(try await target.run(["ask", "mine"]).status == 0)
        try target.sandbox.write("wrong\n", to: "wrong")
        let wrong = try await target.run([
            "restore", archive, "--yes", "--password-file", target.sandbox.root + "/wrong"
        ])
        #expect(wrong.status == 1 && wrong.errors.contains("password is wrong"), "\(wrong)")
        let unconfirmed = try await target.run(["restore", archive, "--password-file", cli.sandbox.root + "/password"])
        #expect(unconfirmed.status == 1 && unconfirmed.errors.contains("--yes"), "\(unconfirmed)")
        #expect(unconfirmed.errors.contains("conversations  1"), "the preview comes first\n\(unconfirmed)")
        #expect(try LibraryStore(path: target.sandbox.libraryPath).conversations().map(\.title) == ["mine"])

        let restored = try await target.run([
            "restore", archive, "--yes", "--password-file", cli.sandbox.root + "/password"
        ])
        #expect(restored.status == 0, "\(restored)")
        #expect(try LibraryStore(path: target.sandbox.libraryPath).conversations().map(\.title) == ["keep this"])
        let copies = try FileManager.default.contentsOfDirectory(atPath: target.sandbox.root + "/data/llmster")
            .filter { $0.hasPrefix("library.sqlite3.before-restore-") }
        #expect(copies.count == 1)
    }

    @Test func aPasswordTypedOnTheTerminalProtectsTheBackup() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["ask", "typed secret test"]).status == 0)
        let llmster = try BuiltProduct.path("llmster")
        let archive = cli.sandbox.root + "/typed.backup"
        func onTerminal(_ command: String, typing input: String, in target: CLI) async throws -> ProcessResult {
            try await ProcessRunner.run(
                "/usr/bin/timeout", ["120", "/usr/bin/script", "-qec", "'\(llmster)' \(command)", "/dev/null"],
                environment: target.environment, input: input)
        }
        let backup = try await onTerminal("backup --password -o '\(archive)'", typing: "hunter2\nhunter2\n", in: cli)
        #expect(backup.status == 0, "\(backup)")
        #expect(backup.output.contains("Backup password:") && backup.output.contains("Again:"))
        #expect(backup.errors.isEmpty && backup.output.contains("(encrypted)"), "\(backup)")

        let target = try CLI(server: fixture.url)
        let mismatch = try await onTerminal("backup --password -o '\(archive).2'", typing: "one\ntwo\n", in: cli)
        #expect(mismatch.status == 1 && mismatch.output.contains("the passwords differ"), "\(mismatch)")
        let restored = try await onTerminal("restore '\(archive)'", typing: "hunter2\ny\n", in: target)
        #expect(restored.status == 0, "\(restored)")
        #expect(restored.output.contains("Replace the library"))
        #expect(
            try LibraryStore(path: target.sandbox.libraryPath).conversations().map(\.title) == ["typed secret test"])
    }
}
