import Foundation
import TestSupport
import Testing

/// The command line as a newcomer types it: piped input with a prompt, choosing a conversation, global options
/// after the command, and suggestions for slips.
@Suite struct CommandLineTests {
    @Test func pipedInputFollowsThePromptAfterABlankLine() throws {
        let fixture = try SimulatorFixture()
        let result = try CLI(server: fixture.url).run(["ask", "echo:Review this diff:"], input: "-old\n+new\n")
        #expect(result.status == 0, "\(result)")
        let request = try #require(fixture.requests(to: "/api/v1/chat").last)
        #expect(request.field("input") == "echo:Review this diff:\n\n-old\n+new\n")
        #expect(result.output.contains("+new"))
    }

    @Test func askHelpSaysHowPipedInputCombines() throws {
        let help = try CLI(server: "http://127.0.0.1:9").run(["ask", "--help"])
        let words = help.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("Piped standard input is added after them and a blank line"), "\(help)")
    }

    @Test func continueTakesNoValueAndChatNamesOne() throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try cli.run(["ask", "echo:Explain SSE"]).status == 0)
        #expect(try cli.run(["ask", "echo:Something else"]).status == 0)

        let continued = try cli.run(["ask", "-c", "echo:And WebSockets?"])
        #expect(continued.status == 0, "\(continued)")
        #expect(
            fixture.requests(to: "/api/v1/chat").last?.field("input") == "echo:And WebSockets?",
            "-c takes no value: every word is the prompt")
        #expect(
            try cli.run(["show", "echo:Something else"]).output.contains("And WebSockets?"),
            "the most recent conversation")

        let chosen = try cli.run(["ask", "--chat", "echo:Explain SSE", "echo:And long polling?"])
        #expect(chosen.status == 0, "\(chosen)")
        #expect(try cli.run(["show", "echo:Explain SSE"]).output.contains("And long polling?"))

        let attached = try cli.run(["ask", "--continue=echo:Explain SSE", "echo:Still here?"])
        #expect(attached.status == 0, "\(attached)")
        #expect(try cli.run(["show", "echo:Explain SSE"]).output.contains("Still here?"))

        let equals = try cli.run(["ask", "-c=abc", "echo:hi"])
        #expect(equals.status == 2, "-c=ID is refused, not read as the name =ID: \(equals)")
        #expect(equals.errors.contains("--continue=CHAT"))
    }

    @Test func anUnknownChatExitsFiveWithTheClosestTitles() throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try cli.run(["ask", "echo:Explain SSE"]).status == 0)
        let unknown = try cli.run(["ask", "--chat", "echo:Explain SEE", "echo:hi"])
        #expect(unknown.status == 5, "\(unknown)")
        #expect(unknown.errors.contains("no conversation matches \"echo:Explain SEE\""))
        #expect(unknown.errors.contains("echo:Explain SSE"), "the close title is a candidate: \(unknown)")
        #expect(fixture.requests(to: "/api/v1/chat").count == 1, "nothing is sent")
        let show = try cli.run(["show", "echo:Explain SEE"])
        #expect(show.status == 5, "\(show)")
        #expect(show.errors.contains("close ones:") && show.errors.contains("echo:Explain SSE"), "\(show)")
    }

    @Test func globalOptionsAreAcceptedAfterTheCommand() throws {
        let fixture = try SimulatorFixture()
        let sandbox = try CLI(server: "http://127.0.0.1:9")
        let result = try sandbox.run(["ask", "--markdown", "never", "--server", fixture.url, "echo:**bold**"])
        #expect(result.status == 0, "\(result)")
        #expect(result.output == "**bold**\n")
        let library = sandbox.sandbox.root + "/elsewhere.sqlite3"
        #expect(
            try sandbox.run(["chats", "--library", library, "--server", fixture.url]).errors.contains(
                "No conversations"))
        let afterDashes = try CLI(server: fixture.url).run(["ask", "--", "--markdown"])
        #expect(afterDashes.status == 6 || afterDashes.status == 0, "after -- an option is the prompt: \(afterDashes)")
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("input") == "--markdown")
    }

    @Test func suggestionsPreferTheClosestName() throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let command = try cli.run(["aks", "hello"])
        #expect(command.status == 2)
        #expect(command.errors.contains("did you mean 'ask'?"), "\(command)")
        let model = try cli.run(["ask", "-m", "acme/thinekr-8b", "hello"])
        #expect(model.status == 5, "\(model)")
        #expect(model.errors.contains("did you mean acme/thinker-8b?"), "\(model)")
        #expect(!model.errors.contains("llmster download"), "a near downloaded model, not a download: \(model)")
        let load = try cli.run(["load", "acme/tiny-b1"])
        #expect(load.status == 5, "\(load)")
        #expect(load.errors.contains("did you mean acme/tiny-1b?"), "\(load)")
    }
}
