import Foundation
import TestSupport
import Testing

/// The command line as a newcomer types it: piped input with a prompt, choosing a conversation, global options
/// after the command, and suggestions for slips.
@Suite(.spawnsProcesses) struct CommandLineTests {
    @Test func pipedInputFollowsThePromptAfterABlankLine() async throws {
        let fixture = try SimulatorFixture()
        let result = try await CLI(server: fixture.url).run(["ask", "echo:Review this diff:"], input: "-old\n+new\n")
        #expect(result.status == 0, "\(result)")
        let request = try #require(fixture.requests(to: "/api/v1/chat").last)
        #expect(request.field("input") == "echo:Review this diff:\n\n-old\n+new\n")
        #expect(result.output.contains("+new"))
    }

    @Test func askHelpSaysHowPipedInputCombines() async throws {
        let help = try await CLI(server: "http://127.0.0.1:9").run(["ask", "--help"])
        let words = help.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("Piped standard input is added after them and a blank line"), "\(help)")
    }

    @Test func continueTakesNoValueAndChatNamesOne() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["ask", "echo:Explain SSE"]).status == 0)
        #expect(try await cli.run(["ask", "echo:Something else"]).status == 0)

        let continued = try await cli.run(["ask", "-c", "echo:And WebSockets?"])
        #expect(continued.status == 0, "\(continued)")
        #expect(
            fixture.requests(to: "/api/v1/chat").last?.field("input") == "echo:And WebSockets?",
            "-c takes no value: every word is the prompt")
        #expect(
            try await cli.run(["show", "echo:Something else"]).output.contains("And WebSockets?"),
            "the most recent conversation")

        let chosen = try await cli.run(["ask", "--chat", "echo:Explain SSE", "echo:And long polling?"])
        #expect(chosen.status == 0, "\(chosen)")
        #expect(try await cli.run(["show", "echo:Explain SSE"]).output.contains("And long polling?"))

        let attached = try await cli.run(["ask", "--continue=echo:Explain SSE", "echo:Still here?"])
        #expect(attached.status == 0, "\(attached)")
        #expect(try await cli.run(["show", "echo:Explain SSE"]).output.contains("Still here?"))

        let equals = try await cli.run(["ask", "-c=abc", "echo:hi"])
        #expect(equals.status == 2, "-c=ID is refused, not read as the name =ID: \(equals)")
        #expect(equals.errors.contains("--continue=CHAT"))
    }

    @Test func anUnknownChatExitsFiveWithTheClosestTitles() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["ask", "echo:Explain SSE"]).status == 0)
        let unknown = try await cli.run(["ask", "--chat", "echo:Explain SEE", "echo:hi"])
        #expect(unknown.status == 5, "\(unknown)")
        #expect(unknown.errors.contains("no conversation matches \"echo:Explain SEE\""))
        #expect(unknown.errors.contains("echo:Explain SSE"), "the close title is a candidate: \(unknown)")
        #expect(fixture.requests(to: "/api/v1/chat").count == 1, "nothing is sent")
        let show = try await cli.run(["show", "echo:Explain SEE"])
        #expect(show.status == 5, "\(show)")
        #expect(show.errors.contains("close ones:") && show.errors.contains("echo:Explain SSE"), "\(show)")
    }

    @Test func globalOptionsAreAcceptedAfterTheCommand() async throws {
        let fixture = try SimulatorFixture()
        let sandbox = try CLI(server: "http://127.0.0.1:9")
        let result = try await sandbox.run(["ask", "--markdown", "never", "--server", fixture.url, "echo:**bold**"])
        #expect(result.status == 0, "\(result)")
        #expect(result.output == "**bold**\n")
        let library = sandbox.sandbox.root + "/elsewhere.sqlite3"
        await #expect(
            try sandbox.run(["chats", "--library", library, "--server", fixture.url]).errors.contains(
                "No conversations"))
        let afterDashes = try await CLI(server: fixture.url).run(["ask", "--", "--markdown"])
        #expect(afterDashes.status == 6 || afterDashes.status == 0, "after -- an option is the prompt: \(afterDashes)")
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("input") == "--markdown")
    }

    @Test func suggestionsPreferTheClosestName() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let command = try await cli.run(["aks", "hello"])
        #expect(command.status == 2)
        #expect(command.errors.contains("did you mean 'ask'?"), "\(command)")
        let model = try await cli.run(["ask", "-m", "acme/thinekr-8b", "hello"])
        #expect(model.status == 5, "\(model)")
        #expect(model.errors.contains("did you mean acme/thinker-8b?"), "\(model)")
        #expect(!model.errors.contains("llmster download"), "a near downloaded model, not a download: \(model)")
        let load = try await cli.run(["load", "acme/tiny-b1"])
        #expect(load.status == 5, "\(load)")
        #expect(load.errors.contains("did you mean acme/tiny-1b?"), "\(load)")
    }
}
