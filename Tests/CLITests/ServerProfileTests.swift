import Foundation
import Simulator
import Testing
import TestSupport

/// Named server profiles: `server.NAME = URL` in the config, `token.NAME` in the credentials file, `--server NAME`.
@Suite struct ServerProfileTests {
    @Test func aProfileIsChosenByNameWithItsOwnToken() throws {
        let rigToken = "sk-lm-rig00000:rigrigrigrigrigrigrig"
        let rig = try SimulatorFixture(SimulatorOptions(requireToken: rigToken))
        let desktop = try SimulatorFixture()
        let cli = try CLI(server: desktop.url)
        try cli.sandbox.write("server.rig = \(rig.url)\nserver.desktop = \(desktop.url)\n", to: "config/llmster/config")
        try cli.sandbox.write("token.rig = \(rigToken)\n", to: "config/llmster/credentials", permissions: 0o600)
        let models = try cli.run(["--server", "rig", "models"])
        #expect(models.status == 0, "\(models)")
        #expect(rig.requests(to: "/api/v1/models").last?.headers["authorization"] == "Bearer \(rigToken)")
        #expect(desktop.requests(to: "/api/v1/models").isEmpty)
        #expect(try cli.run(["--server", "desktop", "models"]).status == 0)
        #expect(desktop.requests(to: "/api/v1/models").last?.headers["authorization"] == nil, "the rig's token stays with the rig")
        let unknown = try cli.run(["--server", "laptop", "models"])
        #expect(unknown.status != 0 && unknown.errors.contains("desktop, rig"), "\(unknown.errors)")
    }
}

/// `doctor` checks every server profile, not only the one in use.
@Suite struct DoctorProfileTests {
    @Test func doctorChecksEveryProfile() throws {
        let here = try SimulatorFixture()
        let rig = try SimulatorFixture()
        let cli = try CLI(server: here.url)
        try cli.sandbox.write("server.here = \(here.url)\nserver.rig = \(rig.url)\nserver.laptop = http://127.0.0.1:\(unusedPort())\n",
                              to: "config/llmster/config")
        let result = try cli.run(["doctor"])
        #expect(result.output.contains("ok    rig") && result.output.contains("profile rig, \(rig.url): LM Studio answers (0.4.0)"), "\(result.output)")
        #expect(result.output.contains("FAIL  laptop") && result.output.contains("profile laptop: LM Studio is not reachable"), "\(result.output)")
        #expect(!result.output.contains("profile here"), "the server in use is checked by the lines above")
        #expect(result.status == 1, "an unreachable profile is a problem")
    }
}
