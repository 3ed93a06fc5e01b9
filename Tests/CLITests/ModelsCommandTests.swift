import Foundation
import Simulator
import TestSupport
import Testing

@Suite(.spawnsProcesses) struct ModelsCommandTests {
    let snapshots = snapshotDirectory(for: #filePath)

    @Test func tableListsEveryLLMWithItsStateAndCapabilities() async throws {
        let fixture = try SimulatorFixture()
        let result = try await CLI(server: fixture.url).run(["models"])
        #expect(result.status == 0, "\(result)")
        assertGolden(result.output, named: "models-table", in: snapshots)
        #expect(!result.output.contains("acme/embed-small"), "embedding models are hidden unless asked for")
    }

    @Test func jsonIsStableForScripts() async throws {
        let fixture = try SimulatorFixture()
        let result = try await CLI(server: fixture.url).run(["models", "--json", "--all"])
        #expect(result.status == 0, "\(result)")
        assertGolden(result.output, named: "models-json", in: snapshots)
        let parsed = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]]
        #expect(parsed?.count == 6)
    }

    @Test(arguments: [
        (["--vision"], ["acme/vision-7b"]),
        (["--tools"], ["acme/multi-26b", "acme/toolsmith-12b"]),
        (["--reasoning"], ["acme/multi-26b", "acme/thinker-8b"]),
        (["--loaded"], ["acme/tiny-1b"]),
        (
            ["--sort", "size"],
            ["acme/tiny-1b", "acme/vision-7b", "acme/thinker-8b", "acme/toolsmith-12b", "acme/multi-26b"]
        ),
        (["--embedding"], ["acme/embed-small"]),
        (
            ["--sort", "format", "--all"],
            [
                "acme/embed-small", "acme/multi-26b", "acme/thinker-8b", "acme/tiny-1b", "acme/toolsmith-12b",
                "acme/vision-7b"
            ]
        )
    ])
    func filtersAndSorts(arguments: [String], keys: [String]) async throws {
        let fixture = try SimulatorFixture()
        let result = try await CLI(server: fixture.url).run(["models"] + arguments)
        #expect(result.status == 0, "\(result)")
        let listed = result.output.split(separator: "\n").dropFirst().map { String($0.split(separator: " ")[0]) }
        #expect(listed == keys)
    }

    @Test func loadTwiceAddsASecondInstanceAndUnloadRemovesIt() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let first = try await cli.run(["load", "acme/thinker-8b", "--context-length", "8192"])
        #expect(first.status == 0, "\(first)")
        #expect(first.output.contains("as acme/thinker-8b"))
        let second = try await cli.run(["load", "acme/thinker-8b"])
        #expect(second.output.contains("as acme/thinker-8b:2"))
        let ps = try await cli.run(["ps"])
        #expect(ps.output.contains("acme/thinker-8b:2"))
        #expect(ps.output.contains("8,192"))
        let unload = try await cli.run(["unload", "acme/thinker-8b:2"])
        #expect(unload.status == 0, "\(unload)")
        #expect(fixture.requests(to: "/api/v1/models/unload").first?.field("instance_id") == "acme/thinker-8b:2")
        await #expect(try !cli.run(["ps"]).output.contains("acme/thinker-8b:2"))
        let missing = try await cli.run(["unload", "acme/nothing"])
        #expect(missing.status == 5)
        #expect(missing.errors.contains("not a loaded instance"))
    }

    @Test func unreachableServerSaysWhatToDo() async throws {
        let result = try await CLI(server: "http://127.0.0.1:\(unusedPort())").run(["models"])
        #expect(result.status == 3)
        #expect(result.errors.contains("LM Studio is not reachable at http://127.0.0.1:"))
        #expect(result.errors.contains("connection refused"))
        #expect(result.errors.contains("lms server start"))
        #expect(result.errors.contains("llmster --demo"), "the way to try llmster without a server")
    }

    @Test func tokenMissingAndRejectedAreToldApartWithoutPrintingTheToken() async throws {
        let token = "sk-lm-abcd1234:abcdefghij0123456789"
        let fixture = try SimulatorFixture(SimulatorOptions(requireToken: token))
        let missing = try await CLI(server: fixture.url).run(["models"])
        #expect(missing.status == 4)
        #expect(missing.errors.contains("LM_API_TOKEN"))
        let wrongToken = "sk-lm-zzzz9999:zzzzzzzzzz9999999999"
        let wrong = try await CLI(server: fixture.url, environment: ["LM_API_TOKEN": wrongToken]).run(["models"])
        #expect(wrong.status == 4)
        #expect(wrong.errors.contains("rejected"))
        #expect(!wrong.errors.contains(wrongToken) && !wrong.output.contains(wrongToken))
        let right = try await CLI(server: fixture.url, environment: ["LM_API_TOKEN": token]).run(["models"])
        #expect(right.status == 0, "\(right)")
        #expect(fixture.requests(to: "/api/v1/models").last?.headers["authorization"] == "Bearer \(token)")
        let malformed = try await CLI(server: fixture.url, environment: ["LM_API_TOKEN": "hunter2"]).run(["models"])
        #expect(malformed.status == 4)
        #expect(!malformed.errors.contains("hunter2"))
    }

    @Test func credentialsFileMustBePrivate() async throws {
        let token = "sk-lm-abcd1234:abcdefghij0123456789"
        let fixture = try SimulatorFixture(SimulatorOptions(requireToken: token))
        let cli = try CLI(server: fixture.url)
        try cli.sandbox.write("token = \(token)\n", to: "config/llmster/credentials", permissions: 0o644)
        let open = try await cli.run(["models"])
        #expect(open.status == 4)
        #expect(open.errors.contains("chmod 600"))
        #expect(!open.errors.contains(token))
        chmod(cli.sandbox.root + "/config/llmster/credentials", 0o600)
        #expect(try await cli.run(["models"]).status == 0)
    }

    @Test func serverOlderThan04IsDetected() async throws {
        let fixture = try SimulatorFixture(SimulatorOptions(legacy: true))
        let result = try await CLI(server: fixture.url).run(["models"])
        #expect(result.status == 3)
        #expect(result.errors.contains("0.4 or newer"))
    }

    @Test func badArgumentsGetUsageNotACrash() async throws {
        let cli = try CLI(server: "http://127.0.0.1:9")
        let unknown = try await cli.run(["models", "--sort", "colour"])
        #expect(unknown.status == 2)
        #expect(unknown.errors.contains("usage: llmster models"))
        let typo = try await cli.run(["modles"])
        #expect(typo.status == 2)
        #expect(typo.errors.contains("did you mean 'models'"))
        let help = try await cli.run(["models", "--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("--sort KEY"))
        let version = try await cli.run(["--version"])
        #expect(version.output.hasPrefix("llmster-client "), "the client is told apart from LM Studio's daemon llmster")
        #expect(!version.output.contains("server:"), "piped, --version asks nothing of the server: \(version)")
        let terminal = try Pseudoterminal(try BuiltProduct.path("llmster"), ["--version"], environment: cli.environment)
        #expect(try await terminal.waitForExit() == 0)
        #expect(terminal.text.contains("server: no LM Studio answered at http://127.0.0.1:9"), "\(terminal.text)")
    }
}
