import Foundation
import Library
import Simulator
import TestSupport
import Testing

@Suite(.spawnsProcesses) struct AskCommandTests {
    @Test func completeReplyStreamsRawMarkdownWhenPipedAndIsSaved() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let result = try await cli.run(["ask", "echo:# Title\n\nSome **bold** text."])
        #expect(result.status == 0, "\(result)")
        #expect(result.output == "# Title\n\nSome **bold** text.\n")
        #expect(result.errors.isEmpty, "stages go to stderr only when it is a terminal")
        let request = try #require(fixture.requests(to: "/api/v1/chat").last)
        #expect(request.field("input") == "echo:# Title\n\nSome **bold** text.", "a plain string input without images")
        #expect(request.field("stream") == "true")
        #expect(request.field("previous_response_id") == nil)

        let chats = try await cli.run(["chats"])
        #expect(chats.output.contains("echo:# Title"))
        let show = try await cli.run(["show", "echo:# Title"])
        #expect(show.output.contains("Some **bold** text."))
        #expect(!show.output.contains("incomplete"))
    }

    @Test func promptFromStandardInput() async throws {
        let fixture = try SimulatorFixture()
        let result = try await CLI(server: fixture.url).run(["ask"], input: "echo:from stdin")
        #expect(result.status == 0, "\(result)")
        #expect(result.output == "from stdin\n")
    }

    /// A prompt piped in another encoding (Latin-1 here) is refused as `-f -` refuses it, not sent with its bytes
    /// replaced.
    @Test func aPromptOnStandardInputThatIsNotUTF8IsRefused() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let result = try await ProcessRunner.run(
            "/bin/sh", ["-c", #"printf 'echo:caf\351 ok\n' | "$0" ask"#, try BuiltProduct.path("llmster")],
            environment: cli.environment)
        #expect(result.status == 2, "\(result)")
        #expect(result.errors.contains("standard input is not valid UTF-8 text"), "\(result)")
        #expect(!result.errors.contains("usage:"), "the command was typed right: \(result.errors)")
        #expect(try await cli.run(["chats"]).output.contains("echo:caf") == false, "nothing was sent or saved")
    }

    @Test func droppedStreamIsIncompleteKeepsTextAndExitsSix() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let result = try await cli.run([
            "ask", "[[sim:drop-after=12]] echo:one two three four five six seven eight nine ten"
        ])
        #expect(result.status == 6, "\(result)")
        #expect(
            result.errors.contains("connection lost (the connection closed before the whole response arrived)"),
            "\(result)")
        #expect(!result.output.isEmpty, "the text received so far is shown")
        let show = try await cli.run(["show", try latestConversation(cli)])
        #expect(show.output.contains("incomplete"))
        let partial = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(show.output.contains(partial))
    }

    @Test func errorEventMarksTheReplyAndExitsSix() async throws {
        let fixture = try SimulatorFixture()
        let result = try await CLI(server: fixture.url).run(["ask", "[[sim:error]] hello"])
        #expect(result.status == 6, "\(result)")
        #expect(result.errors.contains("internal_error") || result.errors.lowercased().contains("error"))
    }

    @Test func toolCallsAreSavedWithArgumentsAndOutput() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let result = try await cli.run(["ask", "-m", "acme/toolsmith-12b", "[[sim:tools]] find docs"])
        #expect(result.status == 0, "\(result)")
        let show = try await cli.run(["show", try latestConversation(cli), "--tools"])
        #expect(show.output.contains("search_docs"))
        #expect(show.output.contains(#"{"query":"sse"}"#))
        #expect(show.output.contains("✗ Cannot find tool open_browser"))
        #expect(show.output.contains("```"), "--tools shows the output")
    }

    @Test func continuationChainCarriesTheServerContext() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["ask", "my favourite fruit is apples"]).status == 0)
        let second = try await cli.run(["ask", "-c", "please recall"])
        #expect(second.status == 0, "\(second)")
        #expect(second.output.contains(#"Earlier you said: "my favourite fruit is apples""#))
        let requests = fixture.requests(to: "/api/v1/chat")
        try #require(requests.count == 2)
        #expect(requests[1].field("previous_response_id")?.hasPrefix("resp_") == true)
        #expect(requests[1].field("system_prompt") == nil)
    }

    @Test func systemPromptOnlyOnTheFirstTurn() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["ask", "--system", "Be brief.", "hello"]).status == 0)
        #expect(try await cli.run(["ask", "-c", "again"]).status == 0)
        let requests = fixture.requests(to: "/api/v1/chat")
        try #require(requests.count == 2)
        #expect(requests[0].field("system_prompt") == "Be brief.")
        #expect(requests[1].field("system_prompt") == nil, "servers refuse system_prompt beside previous_response_id")
    }

    @Test func lostContinuationIsExplainedAndAFreshContextContinues() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["ask", "remember bananas"]).status == 0)
        fixture.simulator.reset()
        let lost = try await cli.run(["ask", "-c", "what did I say? recall"])
        #expect(lost.status == 1, "\(lost)")
        #expect(lost.errors.contains("no longer has this conversation's context"))
        #expect(lost.errors.contains("Nothing was sent or saved"))
        #expect(lost.errors.contains("--fresh-context"))
        await #expect(
            try !cli.run(["show", "remember bananas"]).output.contains("what did I say?"),
            "no unanswered turn is left behind")
        let fresh = try await cli.run(["ask", "-c", "--fresh-context", "what did I say? recall"])
        #expect(fresh.status == 0, "\(fresh)")
        #expect(fresh.output.contains("Nothing earlier in this conversation."))
        let last = try #require(fixture.requests(to: "/api/v1/chat").last)
        #expect(last.field("previous_response_id") == nil)
        #expect(last.field("input") == "what did I say? recall", "the message is sent again")
        let show = try await cli.run(["show", "remember bananas"])
        #expect(show.output.contains("remember bananas"), "the local transcript stays")
        #expect(
            show.output.components(separatedBy: "what did I say? recall").count == 2,
            "the message is saved once: \(show.output)")
    }

    @Test func notLoadedModelIsLoadedJustInTime() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let result = try await cli.run(["ask", "-m", "acme/vision-7b", "echo:hi"])
        #expect(result.status == 0, "\(result)")
        #expect(try await cli.run(["ps"]).output.contains("acme/vision-7b"))
    }

    @Test func imagesAreCheckedByTheirBytesAndByTheModel() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
        let imagePath = cli.sandbox.root + "/picture.png"
        _ = FileManager.default.createFile(atPath: imagePath, contents: Data(png))
        let textPath = cli.sandbox.root + "/notes.png"
        _ = FileManager.default.createFile(atPath: textPath, contents: Data("not an image".utf8))

        let refused = try await cli.run(["ask", "-m", "acme/tiny-1b", "--image", imagePath, "what is this?"])
        #expect(refused.status == 1)
        #expect(refused.errors.contains("cannot read images"))
        let wrongType = try await cli.run(["ask", "-m", "acme/vision-7b", "--image", textPath, "what is this?"])
        #expect(wrongType.status == 2)
        #expect(wrongType.errors.contains("is not a PNG, JPEG, WebP or GIF image"))
        let seen = try await cli.run(["ask", "-m", "acme/vision-7b", "--image", imagePath, "what is this?"])
        #expect(seen.status == 0, "\(seen)")
        #expect(seen.output.contains("I can see 1 image"))
        let request = try #require(fixture.requests(to: "/api/v1/chat").last)
        #expect(request.body.contains(#""type":"image""#))
        #expect(request.body.contains("data:image/png;base64,"))
    }

    @Test func reasoningValueMustBeOneTheModelOffers() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let refused = try await cli.run(["ask", "-m", "acme/thinker-8b", "--reasoning", "xhigh", "hi"])
        #expect(refused.status == 1)
        #expect(refused.errors.contains("off, low, medium, high"))
        #expect(fixture.requests(to: "/api/v1/chat").isEmpty, "refused before sending")
        let accepted = try await cli.run(["ask", "-m", "acme/thinker-8b", "--reasoning", "low", "hi"])
        #expect(accepted.status == 0, "\(accepted)")
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("reasoning") == "low")
    }

    @Test func sigtermSavesThePartialReplyAndExits143() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let process = try cli.start(["ask", "[[sim:stall=30]] echo:alpha beta gamma delta epsilon"])
        try await cli.sandbox.waitForPartialReply(containing: "alpha")
        process.signal(SIGTERM)
        let result = await process.wait()
        #expect(result.status == 143, "\(result)")
        let show = try await cli.run(["show", try latestConversation(cli)])
        #expect(show.output.contains("incomplete"))
        #expect(show.output.contains("Stopped by SIGTERM"), "the reason names the signal: \(show.output)")
        #expect(show.output.contains("alpha"))
    }

    @Test func afterKill9TheNextStartFindsThePartialReplyIncomplete() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let process = try cli.start(["ask", "[[sim:stall=30]] echo:alpha beta gamma delta epsilon"])
        try await cli.sandbox.waitForPartialReply(containing: "alpha")
        process.signal(SIGKILL)
        _ = await process.wait()
        let show = try await cli.run(["show", try latestConversation(cli)])
        #expect(show.output.contains("incomplete"), "\(show)")
        #expect(show.output.contains("alpha"))
    }

    /// The id of the most recently updated conversation, from `llmster chats --json`.
    func latestConversation(_ cli: CLI) async throws -> String {
        let chats = try await cli.run(["chats", "--json"])
        let list = try JSONSerialization.jsonObject(with: Data(chats.output.utf8)) as? [[String: Any]]
        return try #require(list?.first?["id"] as? String)
    }
}
