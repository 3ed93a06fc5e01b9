import Foundation
import Simulator
import TestSupport
import Testing

@Suite(.spawnsProcesses) struct DoctorCommandTests {
    let snapshots = snapshotDirectory(for: #filePath)

    /// The report with timings masked, so it can be compared with a golden file.
    func masked(_ text: String, server: String, sandbox: String = "") -> String {
        text.replacingOccurrences(of: server, with: "SERVER").replacingOccurrences(
            of: sandbox.isEmpty ? "\u{0}" : sandbox, with: "SANDBOX"
        )
        .replacingOccurrences(of: #"answered in \d+ ms"#, with: "answered in N ms", options: .regularExpression)
    }

    @Test func healthyServer() async throws {
        let fixture = try SimulatorFixture()
        let result = try await CLI(server: fixture.url).run(["doctor"])
        #expect(result.status == 0, "\(result)")
        assertGolden(masked(result.output, server: fixture.url), named: "doctor-ok", in: snapshots)
    }

    @Test func unreachableExitsThree() async throws {
        let result = try await CLI(server: "http://127.0.0.1:\(unusedPort())").run(["doctor"])
        #expect(result.status == 3)
        #expect(result.output.contains("FAIL  reachable"))
        #expect(result.output.contains("lms server start"))
        #expect(result.output.contains("llmster --demo"))
    }

    @Test func missingTokenExitsFour() async throws {
        let fixture = try SimulatorFixture(SimulatorOptions(requireToken: "sk-lm-abcd1234:abcdefghij0123456789"))
        let cli = try CLI(server: fixture.url)
        let result = try await cli.run(["doctor"])
        #expect(result.status == 4)
        assertGolden(
            masked(result.output, server: fixture.url, sandbox: cli.sandbox.root), named: "doctor-token-missing",
            in: snapshots)
    }

    @Test func legacyServerExitsThree() async throws {
        let fixture = try SimulatorFixture(SimulatorOptions(legacy: true))
        let result = try await CLI(server: fixture.url).run(["doctor"])
        #expect(result.status == 3)
        #expect(result.output.contains("0.4 or newer"))
    }
}
