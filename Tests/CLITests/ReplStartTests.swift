import Foundation
import Simulator
import TestSupport
import Testing

/// `llmster -m MODEL`, `llmster -c` and `llmster --chat CHAT` open the REPL there, as `ollama run MODEL`,
/// `lms chat MODEL` and `llm chat -c` do.
@Suite(.spawnsProcesses) struct ReplStartTests {
    /// Starts the REPL on a pseudo-terminal and waits for its first prompt.
    func startRepl(_ cli: CLI, _ arguments: [String]) async throws -> Pseudoterminal {
        let terminal = try Pseudoterminal(try BuiltProduct.path("llmster"), arguments, environment: cli.environment)
        _ = try await terminal.waitFor("› ")
        return terminal
    }

    @Test func startsOnAModel() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let terminal = try await startRepl(cli, ["-m", "acme/vision-7b"])
        #expect(terminal.text.contains("acme/vision-7b"), "the prompt shows the model: \(terminal.text)")
        let mark = terminal.mark
        terminal.send("echo:hello there\r")
        _ = try await terminal.waitFor("› ", after: mark + 20)
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("model") == "acme/vision-7b")
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0)
    }

    @Test func resumesTheMostRecentOrANamedConversation() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["ask", "echo:Older chat"]).status == 0)
        #expect(try await cli.run(["ask", "echo:Newer chat"]).status == 0)

        let recent = try await startRepl(cli, ["-c"])
        #expect(recent.text.contains("echo:Newer chat"), "the prompt shows the resumed title: \(recent.text)")
        var mark = recent.mark
        recent.send("echo:more\r")
        _ = try await recent.waitFor("› ", after: mark + 12)
        recent.send("\u{4}")
        #expect(try await recent.waitForExit() == 0)
        #expect(try await cli.run(["show", "echo:Newer chat"]).output.contains("echo:more"))

        let named = try await startRepl(cli, ["--chat", "echo:Older chat", "--markdown", "never"])
        #expect(named.text.contains("echo:Older chat"), "\(named.text)")
        mark = named.mark
        named.send("echo:again\r")
        _ = try await named.waitFor("› ", after: mark + 12)
        named.send("\u{4}")
        #expect(try await named.waitForExit() == 0)
        #expect(try await cli.run(["show", "echo:Older chat"]).output.contains("echo:again"))
    }

    /// With no server answering, the REPL says so before the first prompt, with what to do, instead of failing
    /// only after the first message.
    @Test func anUnreachableServerIsSaidAtStartUp() async throws {
        let cli = try CLI(server: "http://127.0.0.1:\(unusedPort())")
        let terminal = try await startRepl(cli, [])
        let start = terminal.text
        #expect(start.contains("LM Studio is not reachable at http://127.0.0.1:"), "\(start)")
        #expect(start.contains("llmster --demo"), "\(start)")
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0)
    }

    /// A rejected token is said as such at start-up and in the prompt, not as a server that cannot be reached.
    @Test func aRejectedTokenIsNotCalledAnUnreachableServer() async throws {
        let fixture = try SimulatorFixture(SimulatorOptions(requireToken: "sk-lm-abcd1234:abcdefghij0123456789"))
        let cli = try CLI(
            server: fixture.url,
            environment: ["LM_API_TOKEN": "sk-lm-zzzz9999:zzzzzzzzzz9999999999"])
        let terminal = try await startRepl(cli, ["-m", "acme/tiny-1b"])
        let start = terminal.text
        #expect(start.contains("rejected"), "\(start)")
        #expect(start.contains("acme/tiny-1b (token refused)"), "\(start)")
        #expect(!start.contains("server unreachable"), "\(start)")
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0)
    }

    /// With LM Studio running and nothing loaded, the first message opens the model picker instead of failing,
    /// then goes to the model picked; cancelling the picker keeps the message in the line.
    @Test func aFirstMessageWithNothingLoadedOffersThePickerThenSends() async throws {
        let fixture = try SimulatorFixture(SimulatorOptions(loadedAtStart: [:]))
        let cli = try CLI(server: fixture.url)
        let terminal = try await startRepl(cli, [])
        var mark = terminal.mark
        terminal.send("echo:first words\r")
        let picker = try await terminal.waitFor("Enter cancels): ", after: mark + 10)
        #expect(picker.contains("No model is chosen"), "\(picker)")
        #expect(picker.contains("acme/tiny-1b"), "\(picker)")
        mark = terminal.mark
        terminal.send("\r")
        let cancelled = try await terminal.waitFor("› ", after: mark)
        #expect(cancelled.contains("Nothing sent"), "\(cancelled)")
        #expect(fixture.requests(to: "/api/v1/chat").isEmpty)
        mark = terminal.mark
        terminal.send("\r")
        _ = try await terminal.waitFor("Enter cancels): ", after: mark)
        mark = terminal.mark
        terminal.send("tiny\r")
        let sent = try await terminal.waitFor("› ", after: mark + 4)
        #expect(sent.contains("This conversation now uses acme/tiny-1b."), "\(sent)")
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("model") == "acme/tiny-1b")
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("input") == "echo:first words")
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0)
    }

    /// Lines typed ahead of the model list are not picks or filters ("hi" is in acme/thinker-8b): the list waits for
    /// what is typed at it, and they follow the message at the prompts after it.
    @Test func linesTypedAheadOfThePickerFollowTheMessage() async throws {
        let fixture = try SimulatorFixture(SimulatorOptions(loadedAtStart: [:]))
        let cli = try CLI(server: fixture.url)
        let terminal = try await startRepl(cli, [])
        var mark = terminal.mark
        terminal.send("echo:first words\rhi\r")
        let toldPast = try await terminal.waitPast("typed before the list appeared", after: mark + 10)
        // The question again: keys that come before its prompt are typed ahead of it too, and would not be a pick.
        _ = try await terminal.waitFor("Enter cancels): ", after: toldPast)
        #expect(!terminal.text.contains("now uses"), "nothing was picked: \(terminal.text)")
        mark = terminal.mark
        terminal.send("tiny\r")
        let said = try await terminal.waitPast("You said", after: mark + 4)
        // The prompt after the reply to the line typed ahead: Ctrl-D is typed at it.
        try await terminal.waitFor("› ", after: said)
        let requests = fixture.requests(to: "/api/v1/chat")
        #expect(
            requests.map { $0.field("input") } == ["echo:first words", "hi"], "\(requests.map { $0.field("input") })")
        #expect(requests.first?.field("model") == "acme/tiny-1b")
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0)
    }

    /// Started on a model that is not loaded, the first message loads it under the load policy (the previous chat
    /// model is unloaded, as /model does) and the prompt after the reply shows it loaded with its context.
    @Test func aModelNamedAtStartIsLoadedUnderTheLoadPolicy() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let terminal = try await startRepl(cli, ["-m", "acme/thinker-8b"])
        let mark = terminal.mark
        terminal.send("echo:hi\r")
        let shown = try await terminal.waitFor("› ", after: mark + 8)
        #expect(shown.contains("Unloaded acme/tiny-1b."), "\(shown)")
        #expect(shown.contains("acme/thinker-8b (loaded)"), "\(shown)")
        #expect(!shown.contains("(not loaded)"), "\(shown)")
        #expect(fixture.requests(to: "/api/v1/models/unload").first?.field("instance_id") == "acme/tiny-1b")
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0)
        await #expect(try !cli.run(["ps"]).output.contains("acme/tiny-1b"))
    }

    @Test func anUnknownChatOrModelDoesNotOpenTheRepl() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let chat = try await cli.run(["--chat", "no such chat"])
        #expect(chat.status == 5, "\(chat)")
        #expect(chat.errors.contains("no conversation matches"))
        let model = try await cli.run(["-m", "acme/vison-7b"])
        #expect(model.status == 5, "\(model)")
        #expect(model.errors.contains("did you mean acme/vision-7b?"), "\(model)")
        let none = try await cli.run(["-c"])
        #expect(none.status == 5, "no conversation yet: \(none)")
    }
}
