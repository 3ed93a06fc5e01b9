import Foundation
import Library
import Simulator
import TestSupport
import Testing

/// Named server profiles: `server.NAME = URL` in the config, `token.NAME` in the credentials file, `--server NAME`.
@Suite(.spawnsProcesses) struct ServerProfileTests {
    @Test func aProfileIsChosenByNameWithItsOwnToken() async throws {
        let rigToken = "sk-lm-rig00000:rigrigrigrigrigrigrig"
        let rig = try SimulatorFixture(SimulatorOptions(requireToken: rigToken))
        let desktop = try SimulatorFixture()
        let cli = try CLI(server: desktop.url)
        try cli.sandbox.write("server.rig = \(rig.url)\nserver.desktop = \(desktop.url)\n", to: "config/llmster/config")
        try cli.sandbox.write("token.rig = \(rigToken)\n", to: "config/llmster/credentials", permissions: 0o600)
        let models = try await cli.run(["--server", "rig", "models"])
        #expect(models.status == 0, "\(models)")
        #expect(rig.requests(to: "/api/v1/models").last?.headers["authorization"] == "Bearer \(rigToken)")
        #expect(desktop.requests(to: "/api/v1/models").isEmpty)
        #expect(try await cli.run(["--server", "desktop", "models"]).status == 0)
        #expect(
            desktop.requests(to: "/api/v1/models").last?.headers["authorization"] == nil,
            "the rig's token stays with the rig")
        let unknown = try await cli.run(["--server", "laptop", "models"])
        #expect(unknown.status != 0 && unknown.errors.contains("desktop, rig"), "\(unknown.errors)")
    }
}

/// `doctor` checks every server profile, not only the one in use.
@Suite(.spawnsProcesses) struct DoctorProfileTests {
    @Test func doctorChecksEveryProfile() async throws {
        let here = try SimulatorFixture()
        let rig = try SimulatorFixture()
        let cli = try CLI(server: here.url)
        try cli.sandbox.write(
            "server.here = \(here.url)\nserver.rig = \(rig.url)\nserver.laptop = http://127.0.0.1:\(unusedPort())\n",
            to: "config/llmster/config")
        let result = try await cli.run(["doctor"])
        #expect(
            result.output.contains("ok    rig")
                && result.output.contains("profile rig, \(rig.url): LM Studio answers (0.4.0)"), "\(result.output)")
        #expect(
            result.output.contains("warn  laptop")
                && result.output.contains(
                    "profile laptop (not in use: the exit status is not affected): LM Studio is not reachable"),
            "\(result.output)")
        #expect(!result.output.contains("profile here"), "the server in use is checked by the lines above")
        #expect(
            result.status == 0,
            "the server in use works: a profile not in use that is down is a warning: \(result.output)")
    }
}

/// A conversation remembers the server profile it was held on: continuing it goes there, or says why it cannot;
/// `/server NAME` and rpc `server` choose a profile.
@Suite(.spawnsProcesses) struct ConversationProfileTests {
    /// Two simulators as the profiles `desktop` (the config's `server`) and `rig`; no `LLMSTER_SERVER`, so the file decides.
    private func twoProfiles() throws -> (cli: CLI, desktop: SimulatorFixture, rig: SimulatorFixture) {
        let desktop = try SimulatorFixture()
        let rig = try SimulatorFixture()
        let cli = try CLI(server: desktop.url, environment: ["LLMSTER_SERVER": ""])
        try cli.sandbox.write(
            "server = \(desktop.url)\nserver.desktop = \(desktop.url)\nserver.rig = \(rig.url)\n",
            to: "config/llmster/config")
        return (cli, desktop, rig)
    }

    @Test func aConversationContinuesOnTheProfileItWasHeldOn() async throws {
        let (cli, desktop, rig) = try twoProfiles()
        #expect(try await cli.run(["--server", "rig", "ask", "echo:on the rig"]).status == 0)
        let first = try #require(rig.requests(to: "/api/v1/chat").last)
        let conversation = try #require(try LibraryStore(path: cli.sandbox.libraryPath).conversations().first)
        #expect(conversation.serverProfile == "rig")
        let again = try await cli.run(["ask", "-c", "echo:still on the rig"])
        #expect(again.status == 0, "\(again)")
        #expect(
            desktop.requests(to: "/api/v1/chat").isEmpty, "the config's server is not where this conversation lives")
        let second = try #require(rig.requests(to: "/api/v1/chat").last)
        #expect(second.field("input") == "echo:still on the rig")
        #expect(second.field("previous_response_id") != nil && first.field("previous_response_id") == nil)
        #expect(
            try await cli.run(["show", "echo:on the rig"]).output.contains("server profile `rig`"),
            "show says where it is held")
    }

    @Test func anotherChosenServerOrAProfileGoneSaysWhereTheContextIs() async throws {
        let (cli, desktop, rig) = try twoProfiles()
        let first = try await cli.run(["--server", "rig", "ask", "echo:on the rig"])
        #expect(first.status == 0, "\(first)")
        #expect(rig.requests(to: "/api/v1/chat").count == 1)
        let chosen = try await cli.run(["--server", "desktop", "ask", "-c", "echo:here instead"])
        #expect(chosen.status == 1, "\(chosen)")
        #expect(
            chosen.errors.contains("server profile rig; --server rig or /server rig continues there"),
            "\(chosen.errors)")
        #expect(desktop.requests(to: "/api/v1/chat").isEmpty, "nothing was sent without the earlier turns")
        try cli.sandbox.write("server = \(desktop.url)\n", to: "config/llmster/config")
        await #expect(
            try !cli.run(["show", "echo:on the rig"]).output.contains("echo:here instead"),
            "the refused message was not saved")
        let gone = try await cli.run(["ask", "-c", "echo:where now"])
        #expect(gone.status == 1, "\(gone)")
        await #expect(
            try !cli.run(["show", "echo:on the rig"]).output.contains("echo:where now"),
            "nor this one, before it is resent")
        #expect(gone.errors.contains("server profile rig, which this configuration does not define"), "\(gone.errors)")
        let fresh = try await cli.run(["ask", "-c", "--fresh-context", "echo:where now"])
        #expect(fresh.status == 0, "a fresh context here continues: \(fresh)")
        let resent = try #require(desktop.requests(to: "/api/v1/chat").last)
        #expect(
            resent.field("previous_response_id") == nil && resent.field("input") == "echo:where now",
            "the message is sent in a fresh context")
        #expect(
            try await cli.run(["show", "echo:on the rig"]).output.components(separatedBy: "echo:where now").count == 2,
            "the refused tries left nothing behind: the message is saved once")
    }

    /// Without profiles, `/server` names the address alone (no empty profile name, no parentheses around it).
    @Test func replServerWithoutProfilesNamesTheAddress() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let terminal = try Pseudoterminal(try BuiltProduct.path("llmster"), [], environment: cli.environment)
        _ = try await terminal.waitFor("› ")
        let mark = terminal.mark
        terminal.send("/server\r")
        let shown = try await terminal.waitFor("› ", after: mark + 8)
        #expect(shown.contains("Server: \(fixture.url); no profiles are configured"), "\(shown)")
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0)
    }

    @Test func replServerSwitchesTheProfileAndOpeningAConversationFollowsIt() async throws {
        let (cli, desktop, rig) = try twoProfiles()
        let terminal = try Pseudoterminal(try BuiltProduct.path("llmster"), [], environment: cli.environment)
        _ = try await terminal.waitFor("› ")
        var mark = terminal.mark
        terminal.send("/server\r")
        let listed = try await terminal.waitFor("› ", after: mark + 8)
        #expect(listed.contains("* desktop") && listed.contains("  rig"), "\(listed)")
        mark = terminal.mark
        terminal.send("/server rig\r")
        let switched = try await terminal.waitFor("› ", after: mark + 12)
        #expect(switched.contains("Now talking to rig (\(rig.url))."), "\(switched)")
        mark = terminal.mark
        terminal.send("echo:through the rig\r")
        _ = try await terminal.waitFor("› ", after: mark + 22)
        #expect(rig.requests(to: "/api/v1/chat").last?.field("input") == "echo:through the rig")
        #expect(desktop.requests(to: "/api/v1/chat").isEmpty)
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0)

        let reopened = try Pseudoterminal(try BuiltProduct.path("llmster"), ["-c"], environment: cli.environment)
        let start = try await reopened.waitFor("› ")
        #expect(start.contains("Server: rig (\(rig.url)), where this conversation was held."), "\(start)")
        reopened.send("\u{4}")
        #expect(try await reopened.waitForExit() == 0)
    }
}
