import Foundation
import TestSupport
import Testing

/// Mistyped or hostile command-line values get a clear error instead of a misleading one or none.
@Suite(.spawnsProcesses) struct CommandLineHardeningTests {
    @Test func anImageThatIsADirectorySaysSo() async throws {
        let cli = try CLI(server: "http://127.0.0.1:\(unusedPort())")
        let result = try await cli.run(["ask", "--image", cli.sandbox.root, "describe"])
        #expect(result.status == 2, "\(result)")
        #expect(result.errors.contains("is a directory"), "\(result)")
        #expect(!result.errors.contains("larger than"))
    }

    /// A usage error on the way into the REPL (two conversations named) says so with llmster's usage line and where
    /// to read more, as an unknown option does, before anything starts.
    @Test func aUsageErrorStartingTheReplPointsAtHelp() async throws {
        let cli = try CLI(server: "http://127.0.0.1:\(unusedPort())")
        let result = try await cli.run(["--chat", "first", "--continue=second"])
        #expect(result.status == 2, "\(result)")
        #expect(result.errors.contains("--chat and --continue name different conversations"), "\(result)")
        #expect(result.errors.contains("usage: llmster") && result.errors.contains("see llmster --help"), "\(result)")
    }

    @Test(arguments: ["http://[::1]:99999", "http://127.0.0.1:0", "http://localhost:port"])
    func aServerWithAnInvalidPortSaysThePortIsInvalid(server: String) async throws {
        let cli = try CLI(server: "http://127.0.0.1:\(unusedPort())")
        let result = try await cli.run(["--server", server, "models"])
        #expect(result.status == 1, "\(result)")
        #expect(result.errors.contains("port"), "\(result)")
        #expect(!result.errors.contains("cannot read"))
    }

    @Test func downloadRefusesAnEmptyModelName() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let result = try await cli.run(["download", ""])
        #expect(result.status == 2, "\(result)")
        #expect(result.errors.contains("name one model"), "\(result)")
        #expect(!result.errors.contains("Download job"))
    }

    @Test func anExplicitConfigThatIsMissingOrADirectoryIsAnError() async throws {
        let cli = try CLI(server: "http://127.0.0.1:\(unusedPort())")
        let missing = try await cli.run(["--config", cli.sandbox.root + "/no-such.conf", "chats"])
        #expect(missing.status == 1, "\(missing)")
        #expect(missing.errors.contains("no-such.conf") && missing.errors.contains("does not exist"), "\(missing)")
        let directory = try await cli.run(["--config", cli.sandbox.root, "chats"])
        #expect(directory.status == 1, "\(directory)")
        #expect(directory.errors.contains("is a directory"), "\(directory)")
    }

    @Test func searchRefusesALimitThatIsNotAPositiveNumber() async throws {
        let cli = try CLI(server: "http://127.0.0.1:\(unusedPort())")
        for limit in ["abc", "0", "-3"] {
            let result = try await cli.run(["search", "--limit", limit, "hello"])
            #expect(result.status == 2, "--limit \(limit): \(result)")
            #expect(result.errors.contains("--limit must be a positive number"), "\(result)")
        }
    }

    @Test func aPasswordInTheServerURLIsNeverPrinted() async throws {
        let port = unusedPort()
        let cli = try CLI(server: "http://127.0.0.1:\(port)")
        for arguments in [
            ["--server", "http://ann:hunter2@127.0.0.1:\(port)", "models"],
            ["--server", "http://ann:hunter2@127.0.0.1:\(port)", "doctor"]
        ] {
            let result = try await cli.run(arguments)
            #expect(result.status != 0, "\(result)")
            #expect(!(result.output + result.errors).contains("hunter2"), "\(arguments): \(result)")
            #expect((result.output + result.errors).contains("ann:***@127.0.0.1"), "\(arguments): \(result)")
        }
    }
}
