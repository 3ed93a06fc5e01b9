import Foundation
import Library
import Simulator
import TestSupport
import Testing

/// The findings of an adversarial pass against a hostile LM Studio stand-in, each kept as a scenario of the
/// simulator: control sequences in the model list, a final event that drops what streamed, stats no 64-bit integer
/// holds, and concurrent writers of one conversation.
@Suite(.spawnsProcesses) struct HostileServerTests {
    /// Whether `text` holds a control character a terminal would act on (C0 but newline and tab, DEL, C1, bidi controls).
    static func rawControl(in text: String) -> Unicode.Scalar? {
        text.unicodeScalars.first { scalar in
            switch scalar.value {
            case 0x0A, 0x09: false
            case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
            default: false
            }
        }
    }

    static func hostileSimulator() throws -> SimulatorFixture {
        var options = SimulatorOptions()
        options.hostileModels = true
        options.loadedAtStart = ["acme/tiny-1b": 4096, HostileScenarios.modelKey: 4096]
        return try SimulatorFixture(options)
    }

    @Test func everyCommandNamingAModelTitleOrFolderPrintsNoRawControlCharacter() async throws {
        let fixture = try Self.hostileSimulator()
        let cli = try CLI(server: fixture.url)
        let title = "Clip \u{1B}]52;c;cHduZWQ=\u{07} title \u{1B}]0;pwned\u{07} \u{9B}31m \u{202E}rtl"
        let folder = "Folder\u{1B}[2J\u{85}\u{202E}"
        let asked = try await cli.run(["ask", "-m", HostileScenarios.modelKey, "--folder", folder, title + "\necho:hi"])
        #expect(asked.status == 0, "\(asked)")
        let chat = try await AskCommandTests().latestConversation(cli)
        let runs: [[String]] = [
            ["models"], ["ps"], ["chats"], ["chats", "--folder", folder], ["show", chat],
            ["show", chat, "--alternatives"],
            ["search", "Clip"], ["load", "evil/"], ["ask", "-m", "evil/", "hi"], ["unload", "evil/"],
            ["__complete", "models"], ["__complete", "instances"], ["__complete", "chats"], ["__complete", "folders"],
            ["export", "no such \u{1B}]0;x\u{07} chat"]
        ]
        for arguments in runs {
            let result = try await cli.run(arguments)
            for (stream, text) in [("stdout", result.output), ("stderr", result.errors)] {
                let raw = Self.rawControl(in: text)
                #expect(
                    raw == nil,
                    "llmster \(arguments.map(\.debugDescription).joined(separator: " ")) printed U+\(String(raw?.value ?? 0, radix: 16)) raw on \(stream):\n\(text.debugDescription)"
                )
            }
        }
        let models = try await cli.run(["__complete", "models"])
        #expect(
            models.output.contains("evil/␛]52;c;cHduZWQ=␇"),
            "the hostile key is offered, inert: \(models.output.debugDescription)")
        let suggestion = try await cli.run(["ask", "-m", "evil/", "hi"])
        #expect(suggestion.errors.contains("did you mean evil/␛]52"), "\(suggestion)")
    }

    @Test(arguments: [
        ("final-drop=answer", "echo:every streamed word"),
        ("reasoning final-drop=reasoning", "echo:the answer stays"),
        ("tools final-drop=tools", "echo:after the tools")
    ])
    func aFinalEventDroppingWhatStreamedKeepsTheStreamedVersionAsAnAlternative(directives: String, prompt: String)
        async throws
    {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let result = try await cli.run(["ask", "[[sim:\(directives)]] \(prompt)"])
        #expect(result.status == 0, "\(result)")
        let library = try LibraryStore(path: cli.sandbox.libraryPath)
        let conversation = try #require(try library.mostRecentConversation())
        let reply = try #require(try library.messages(conversationId: conversation.id).last)
        #expect(reply.isRewritten, "the saved reply is the server's final one")
        let kept = try #require(
            reply.streamedVersionId.flatMap { try library.message(id: $0) }, "the streamed version is kept")
        #expect(!kept.onBranch && kept.parentId == reply.parentId, "as an alternative of the reply")
        #expect(
            try library.alternatives(messageId: reply.id).map(\.id) == [kept.id, reply.id],
            "the final reply stays the newest")
        switch directives {
        case "final-drop=answer":
            #expect(reply.text.isEmpty)
            #expect(kept.text == "every streamed word")
        case "reasoning final-drop=reasoning":
            #expect(reply.reasoning.isEmpty && reply.text == "the answer stays")
            #expect(kept.reasoning.contains("The user wrote") && kept.text == "the answer stays")
        default:
            #expect(try library.toolCalls(messageId: reply.id).isEmpty)
            #expect(try library.toolCalls(messageId: kept.id).map(\.name) == ["search_docs", "open_browser"])
        }
        let show = try await cli.run(["show", conversation.id])
        #expect(show.output.contains("the streamed version is kept as alternative 1 of 2"), "\(show)")
    }

    @Test func aLongStreamedAnswerTheFinalEventEmptiesIsKeptWhole() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let result = try await cli.run(["ask", "[[sim:large=3000000 final-drop=answer]] write a lot"])
        #expect(result.status == 0, "\(result.status) \(result.errors)")
        let library = try LibraryStore(path: cli.sandbox.libraryPath)
        let conversation = try #require(try library.mostRecentConversation())
        let reply = try #require(try library.messages(conversationId: conversation.id).last)
        let kept = try #require(reply.streamedVersionId.flatMap { try library.message(id: $0) })
        #expect(reply.text.isEmpty)
        #expect(
            kept.text.utf8.count >= 3_000_000 && kept.text.hasPrefix("## Section 1"),
            "\(kept.text.utf8.count) bytes kept")
    }

    @Test func statsBeyondInt64AreAnUnreadableEventNamingTheField() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let result = try await cli.run(["ask", "[[sim:overflow-stats]] echo:counted"])
        #expect(result.status == 6, "the reply is not complete: \(result)")
        #expect(result.errors.contains("could not read"), "\(result.errors)")
        #expect(result.errors.contains("result.stats.input_tokens"), "the field is named: \(result.errors)")
        #expect(!result.errors.contains("stream ended before"), "\(result.errors)")
    }

    @Test func aSecondWriterOfAConversationBeingAnsweredIsRefusedNamingTheFirst() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        try #require(try await cli.run(["ask", "echo:first"]).status == 0)
        let asking = try cli.start(["ask", "-c", "[[sim:stall=30]] echo:alpha beta gamma delta epsilon"])
        try await cli.sandbox.waitForPartialReply(containing: "alpha")
        let refused = try await cli.run(["ask", "-c", "echo:second writer"])
        #expect(refused.status == 1, "\(refused)")
        #expect(
            refused.errors.contains("is being answered by process \(asking.process.processIdentifier)"), "\(refused)")
        asking.signal(SIGTERM)
        await #expect(asking.wait().status == 143)
        let after = try await cli.run(["ask", "-c", "echo:third"])
        #expect(after.status == 0, "the lock went with its writer: \(after)")
        let library = try LibraryStore(path: cli.sandbox.libraryPath)
        let conversation = try #require(try library.mostRecentConversation())
        let texts = try library.messages(conversationId: conversation.id).map(\.text)
        #expect(!texts.contains { $0.contains("second writer") }, "the refused turn was not saved: \(texts)")
    }

    @Test func tenParallelAsksOnOneConversationNeverInterleaveItsTurns() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        try #require(try await cli.run(["ask", "echo:start"]).status == 0)
        let asks = try (0..<10).map { try cli.start(["ask", "-c", "[[sim:stall=0.5]] echo:same\($0)"]) }
        var results: [ProcessResult] = []
        for ask in asks { results.append(await ask.wait()) }
        for result in results where result.status != 0 {
            #expect(result.status == 1 && result.errors.contains("is being answered by"), "\(result)")
        }
        let library = try LibraryStore(path: cli.sandbox.libraryPath)
        let conversation = try #require(try library.mostRecentConversation())
        let branch = try library.messages(conversationId: conversation.id)
        #expect(
            branch.count == 2 * (1 + results.filter { $0.status == 0 }.count), "one turn and one answer per success")
        for (index, message) in branch.enumerated() {
            #expect(
                message.role == (index.isMultiple(of: 2) ? .user : .assistant), "turns alternate: \(branch.map(\.role))"
            )
            #expect(message.parentId == (index == 0 ? nil : branch[index - 1].id), "each follows the one before it")
            if message.role == .assistant, let question = branch[index - 1].text.split(separator: ":").last {
                #expect(message.text == question, "the answer to \(question) follows it")
            }
        }
    }
}

extension HostileServerTests {
    @Test func anIdleRpcHoldsTheLibrarySoARestoreRefusesNamingIt() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        try #require(try await cli.run(["ask", "echo:first"]).status == 0)
        let backup = cli.sandbox.root + "/library.backup"
        try #require(try await cli.run(["backup", "-o", backup]).status == 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BuiltProduct.path("llmster"))
        process.arguments = ["rpc"]
        process.environment = cli.environment
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Any answer shows the process is serving; it has not been initialised, so it has not opened the library.
        input.fileHandleForWriting.writeToChild(
            #"{"jsonrpc":"2.0","id":1,"method":"conversations/list"}"#.utf8 + [0x0A])
        let received = await output.fileHandleForReading.read(until: { $0.contains("\n") })
        #expect(received.contains(#""id":1"#), "\(received)")
        let refused = try await cli.run(["restore", backup, "--yes"])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.errors.contains("in use by process \(process.processIdentifier) (llmster rpc)"), "\(refused)")
        try input.fileHandleForWriting.close()
        await process.waitForExit()
        #expect(
            try await cli.run(["restore", backup, "--yes"]).status == 0, "once the editor quit, the restore goes ahead")
    }
}

extension HostileServerTests {
    /// An encrypted backup whose header asks for a costly key derivation: the cost is stated before the password is
    /// used, and a ceiling refuses it before anything is derived.
    @Test func restoreStatesTheKeyDerivationCostAndACeilingRefusesACostlierOne() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url, environment: ["LLMSTER_BACKUP_PASSWORD": "correct horse"])
        try #require(try await cli.run(["ask", "echo:keep me"]).status == 0)
        let backup = cli.sandbox.root + "/costly.backup"
        try LibraryBackup.write(
            libraryPath: cli.sandbox.libraryPath, to: backup, password: Array("correct horse".utf8),
            limits: .interactive)

        let refused = try await cli.run(["restore", backup, "--yes", "--max-kdf-memory", "32M"])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.errors.contains("asks for 64 MiB of memory"), "\(refused)")
        #expect(refused.errors.contains("above the ceiling of 32 MiB"), "\(refused)")
        let files = try FileManager.default.contentsOfDirectory(
            atPath: (cli.sandbox.libraryPath as NSString).deletingLastPathComponent)
        #expect(!files.contains { $0.contains("restoring") }, "nothing was built: \(files)")

        try cli.sandbox.write("max_kdf_memory = 16M\n", to: "config/llmster/config")
        let configured = try await cli.run(["restore", backup, "--yes"])
        #expect(configured.status == 1 && configured.errors.contains("above the ceiling of 16 MiB"), "\(configured)")

        let restored = try await cli.run(["restore", backup, "--yes", "--max-kdf-memory", "1G"])
        #expect(restored.status == 0, "\(restored)")
        #expect(
            restored.errors.contains("Deriving this backup's key takes 64 MiB of memory, 2 passes (Argon2id)"),
            "\(restored)")
    }
}
