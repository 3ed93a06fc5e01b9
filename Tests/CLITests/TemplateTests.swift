import Foundation
import Library
import TestSupport
import Testing

/// `preset.NAME.template` with `{{input}}` and `{{stdin}}`: `ask --preset`, `/preset` and rpc `chat/send` send it filled in.
@Suite(.spawnsProcesses) struct TemplateTests {
    private func configured(
        _ fixture: SimulatorFixture, template: String = "Review this diff:\\n\\n{{stdin}}\\n\\nFocus on {{input}}."
    ) throws -> CLI {
        let cli = try CLI(server: fixture.url)
        try cli.sandbox.write(
            """
            preset.review.system = You review diffs.
            preset.review.template = \(template)
            preset.wrap.template = echo:[{{ input }}]

            """, to: "config/llmster/config")
        return cli
    }

    @Test func askFillsTheSlotsFromItsArgumentsAndStandardInput() async throws {
        let fixture = try SimulatorFixture()
        let cli = try configured(fixture)
        let result = try await cli.run(["--preset", "review", "ask", "naming"], input: "+ let x = 1\n")
        #expect(result.status == 0, "\(result)")
        let request = try #require(fixture.requests(to: "/api/v1/chat").last)
        #expect(request.field("input") == "Review this diff:\n\n+ let x = 1\n\n\nFocus on naming.")
        #expect(request.field("system_prompt") == "You review diffs.")
        let stored = try #require(try LibraryStore(path: cli.sandbox.libraryPath).conversations().first)
        #expect(
            try LibraryStore(path: cli.sandbox.libraryPath).messages(conversationId: stored.id).first?.text
                == "Review this diff:\n\n+ let x = 1\n\n\nFocus on naming.", "the library keeps what was sent")
    }

    @Test func inputWithoutAStdinSlotCarriesThePipedTextAfterABlankLine() async throws {
        let fixture = try SimulatorFixture()
        let cli = try configured(fixture)
        #expect(try await cli.run(["--preset", "wrap", "ask", "hello"], input: "piped").status == 0)
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("input") == "echo:[hello\n\npiped]")
    }

    @Test func anUnknownSlotIsRefusedNamingIt() async throws {
        let fixture = try SimulatorFixture()
        let cli = try configured(fixture, template: "Look at {{selection}} and {{input}}")
        let result = try await cli.run(["--preset", "review", "ask", "hi"])
        #expect(result.status != 0, "\(result)")
        #expect(
            result.errors.contains("{{selection}} is no slot") && result.errors.contains("preset.review.template"),
            "\(result.errors)")
        #expect(fixture.requests(to: "/api/v1/chat").isEmpty, "nothing is sent")
    }

    @Test func replPresetFillsTheTextGivenOrTheNextMessage() async throws {
        let fixture = try SimulatorFixture()
        let cli = try configured(fixture)
        let terminal = try Pseudoterminal(try BuiltProduct.path("llmster"), [], environment: cli.environment)
        _ = try await terminal.waitFor("› ")
        var mark = terminal.mark
        terminal.send("/preset wrap first\r")
        let sent = try await terminal.waitFor("› ", after: mark + 18)
        #expect(sent.contains("template fills this message ({{input}})"), "sent at once: \(sent)")
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("input") == "echo:[first]")
        mark = terminal.mark
        terminal.send("echo:plain\r")
        _ = try await terminal.waitFor("› ", after: mark + 10)
        #expect(
            fixture.requests(to: "/api/v1/chat").last?.field("input") == "echo:plain", "one message takes the template")
        mark = terminal.mark
        terminal.send("/preset wrap\r")
        let waiting = try await terminal.waitFor("› ", after: mark + 12)
        #expect(waiting.contains("template fills your next message ({{input}})"), "\(waiting)")
        mark = terminal.mark
        terminal.send("second\r")
        _ = try await terminal.waitFor("› ", after: mark + 6)
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("input") == "echo:[second]")
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0)
    }
}

/// `alias.NAME = MODEL-KEY`: a short name accepted wherever a model key is, and shown beside the key.
@Suite(.spawnsProcesses) struct ModelAliasTests {
    private func configured(_ fixture: SimulatorFixture) throws -> CLI {
        let cli = try CLI(server: fixture.url)
        try cli.sandbox.write(
            "alias.fast = acme/tiny-1b\nalias.typo = acme/tiny-lb\npreset.quick.model = fast\npreset.quick.system = Be quick.\n",
            to: "config/llmster/config")
        return cli
    }

    @Test func askAndPresetsAcceptAnAlias() async throws {
        let fixture = try SimulatorFixture()
        let cli = try configured(fixture)
        #expect(try await cli.run(["ask", "-m", "fast", "echo:hi"]).status == 0)
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("model") == "acme/tiny-1b")
        #expect(try LibraryStore(path: cli.sandbox.libraryPath).conversations().first?.modelKey == "acme/tiny-1b")
        #expect(try await cli.run(["--preset", "quick", "ask", "echo:quick"]).status == 0)
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("model") == "acme/tiny-1b")
    }

    @Test func anAliasOfAMissingModelSaysSoWithTheNearestKey() async throws {
        let fixture = try SimulatorFixture()
        let result = try await configured(fixture).run(["ask", "-m", "typo", "echo:hi"])
        #expect(result.status != 0)
        #expect(
            result.errors.contains("acme/tiny-lb is not downloaded")
                && result.errors.contains("did you mean acme/tiny-1b?"), "\(result.errors)")
    }

    @Test func listingsAndCompletionShowAliases() async throws {
        let fixture = try SimulatorFixture()
        let cli = try configured(fixture)
        let models = try await cli.run(["models"])
        #expect(models.output.contains("acme/tiny-1b (fast)"), "\(models.output)")
        let json = try await cli.run(["models", "--json"])
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        #expect(objects.first { $0["key"] as? String == "acme/tiny-1b" }?["aliases"] as? [String] == ["fast"])
        #expect(objects.first { $0["key"] as? String == "acme/thinker-8b" }?["aliases"] as? [String] == [])
        let completion = try await cli.run(["__complete", "models"])
        #expect(completion.output.split(separator: "\n").contains("fast"), "\(completion.output)")
        #expect(try await cli.run(["load", "fast"]).status == 0)
        #expect(fixture.requests(to: "/api/v1/models/load").last?.field("model") == "acme/tiny-1b")
    }

    @Test func replModelAcceptsAnAlias() async throws {
        let fixture = try SimulatorFixture()
        let cli = try configured(fixture)
        let terminal = try Pseudoterminal(try BuiltProduct.path("llmster"), [], environment: cli.environment)
        _ = try await terminal.waitFor("› ")
        let mark = terminal.mark
        terminal.send("/model fast\r")
        let chosen = try await terminal.waitFor("› ", after: mark + 11)
        #expect(chosen.contains("now uses acme/tiny-1b"), "\(chosen)")
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0)
    }
}
