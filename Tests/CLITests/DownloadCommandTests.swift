import Foundation
import TestSupport
import Testing

@Suite(.spawnsProcesses) struct DownloadCommandTests {
    @Test func watchedToCompletionThenListed() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let result = try await cli.run(["download", "acme/new-3b", "--interval", "0.01"])
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains("Downloaded acme/new-3b"))
        #expect(
            result.errors.contains("Downloading acme/new-3b"), "progress lines when standard error is not a terminal")
        #expect(result.errors.contains("%"))
        #expect(try await cli.run(["models"]).output.contains("acme/new-3b"), "the picker offers the new model")
    }

    @Test func alreadyDownloadedIsSaidSo() async throws {
        let fixture = try SimulatorFixture()
        let result = try await CLI(server: fixture.url).run(["download", "acme/tiny-1b"])
        #expect(result.status == 0)
        #expect(result.output.contains("already downloaded"))
    }

    @Test func failedDownloadExitsOne() async throws {
        let fixture = try SimulatorFixture()
        let result = try await CLI(server: fixture.url).run(["download", "acme/fail-2b", "--interval", "0.01"])
        #expect(result.status == 1, "\(result)")
        #expect(result.errors.contains("failed"))
    }

    @Test func ctrlCStopsWatchingNotTheJobAndStatusResumes() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let watching = try cli.start(["download", "acme/slow-9b", "--interval", "30"])
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline, !watching.errorsSoFar.contains("Download job") {
            try await Task.sleep(for: .milliseconds(20))
        }
        watching.signal(SIGINT)
        let stopped = await watching.wait()
        #expect(stopped.status == 130, "\(stopped)")
        #expect(stopped.errors.contains("llmster download --status job_"))
        let job = try #require(stopped.errors.firstMatch(of: /--status (job_\w+)/)?.1)
        let resumed = try await cli.run(["download", "--status", String(job), "--interval", "0.01"])
        #expect(resumed.status == 0, "\(resumed)")
        #expect(resumed.output.contains("Downloaded"))
    }

    /// On an 80-column terminal the progress of a model with a long name is redrawn in one row, so nothing of it is
    /// left on the screen once the download ends (a line that wrapped left one row behind per update).
    @Test func progressOfALongNameFitsOneRowAndLeavesNothingBehind() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let name = "acme/an-unusually-long-model-name-as-hugging-face-repositories-have-GGUF-Q4_K_M"
        let terminal = try Pseudoterminal(
            try BuiltProduct.path("llmster"), ["download", name, "--interval", "0.01"],
            environment: cli.environment, width: 80, height: 24)
        #expect(try await terminal.waitForExit() == 0)
        var screen = TerminalScreen(width: 80, height: 24)
        screen.apply(terminal.rawOutput)
        #expect(terminal.rawOutput.contains("Downloading acme/an-unusually"), "progress was drawn")
        #expect(!screen.lines.contains { $0.contains("Downloading") || $0.contains("▕") }, "\(screen.lines)")
        // The line saying it is done is wrapped between words: the name, which fits a row, is whole on one.
        #expect(screen.lines.contains { $0.hasPrefix("Downloaded") } && screen.lines.contains(name), "\(screen.lines)")
    }
}
