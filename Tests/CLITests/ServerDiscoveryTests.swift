import Foundation
import Simulator
import TestSupport
import Testing

/// With no server named (no `--server`, `$LLMSTER_SERVER` or config line) and nothing at localhost:1234, the port
/// LM Studio publishes in `~/.lmstudio/.internal/http-server.json` (or `$LMS_API_SERVER_INFO_PATH`) is used, and
/// `doctor` says what named the server.
@Suite(.spawnsProcesses) struct ServerDiscoveryTests {
    private func port(of fixture: SimulatorFixture) throws -> Int { try #require(URL(string: fixture.url)?.port) }

    @Test func lmStudiosPublishedPortIsUsedWhenNothingNamesAServer() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: "", environment: ["LLMSTER_SERVER": ""])
        try cli.sandbox.write("{\"port\": \(try port(of: fixture))}", to: "home/.lmstudio/.internal/http-server.json")
        let doctor = try await cli.run(["doctor"])
        #expect(doctor.status == 0, "\(doctor)")
        #expect(
            doctor.output.contains(
                "http://127.0.0.1:\(try port(of: fixture)), named by the port LM Studio published in "
                    + cli.sandbox.root + "/home/.lmstudio/.internal/http-server.json"), "\(doctor.output)")
        let asked = try await cli.run(["ask", "echo:found where it runs"])
        #expect(asked.status == 0 && asked.output.contains("found where it runs"), "\(asked)")
        #expect(fixture.requests(to: "/api/v1/chat").count == 1)
    }

    @Test func theFileNamedByLmsApiServerInfoPathIsReadInstead() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: "", environment: ["LLMSTER_SERVER": ""])
        try cli.sandbox.write("{\"port\": \(try port(of: fixture))}", to: "elsewhere/server.json")
        var environment = cli.extraEnvironment
        environment["LMS_API_SERVER_INFO_PATH"] = cli.sandbox.root + "/elsewhere/server.json"
        let moved = CLI(sandboxOf: cli, environment: environment)
        let doctor = try await moved.run(["doctor"])
        #expect(doctor.status == 0 && doctor.output.contains("elsewhere/server.json"), "\(doctor)")
    }

    @Test func aServerTheConfigNamesIsKeptEvenWhenItDoesNotAnswer() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: "", environment: ["LLMSTER_SERVER": ""])
        try cli.sandbox.write("{\"port\": \(try port(of: fixture))}", to: "home/.lmstudio/.internal/http-server.json")
        try cli.sandbox.write("server = http://127.0.0.1:\(unusedPort())\n", to: "config/llmster/config")
        let doctor = try await cli.run(["doctor"])
        #expect(doctor.status == 3, "the server the config names is the one checked: \(doctor)")
        #expect(doctor.output.contains("named by the config file"), "\(doctor.output)")
        #expect(fixture.requests(to: "/api/v1/models").isEmpty)
    }
}
