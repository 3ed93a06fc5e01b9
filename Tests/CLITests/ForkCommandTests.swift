import Foundation
import Library
import TestSupport
import Testing

/// `llmster fork`, `/fork` and rpc `conversations/fork`: a new conversation from an earlier reply, continuing from
/// that reply's server context, with the original untouched.
@Suite(.spawnsProcesses) struct ForkCommandTests {
    /// A conversation of three turns; returns its title and the response ids of its three replies.
    private func threeTurns(_ cli: CLI, _ fixture: SimulatorFixture) async throws -> [String] {
        #expect(try await cli.run(["ask", "echo:one"]).status == 0)
        #expect(try await cli.run(["ask", "-c", "echo:two"]).status == 0)
        #expect(try await cli.run(["ask", "-c", "echo:three"]).status == 0)
        let library = try LibraryStore(path: cli.sandbox.libraryPath)
        let conversation = try #require(try library.conversations().first)
        return try library.messages(conversationId: conversation.id).filter { $0.role == .assistant }.compactMap(
            \.responseId)
    }

    @Test func aForkHoldsTurnsUpToItsReplyAndContinuesFromThere() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let responses = try await threeTurns(cli, fixture)
        #expect(responses.count == 3)
        let forked = try await cli.run(["fork", "echo:one", "--at", "2", "--title", "Side path"])
        #expect(forked.status == 0, "\(forked)")
        #expect(forked.output.contains("Forked as Side path"), "\(forked)")
        #expect(try await cli.run(["ask", "--chat", "Side path", "echo:branching off"]).status == 0)
        #expect(
            fixture.requests(to: "/api/v1/chat").last?.field("previous_response_id") == responses[1],
            "the fork continues from reply 2's context")
        let show = try await cli.run(["show", "Side path"])
        #expect(show.output.contains("forked from echo:one at reply 2"), "\(show.output)")
        #expect(show.output.contains("echo:two") && !show.output.contains("echo:three"), "\(show.output)")
        let original = try await cli.run(["show", "echo:one"])
        #expect(
            original.output.contains("echo:three") && !original.output.contains("branching off"),
            "the original is untouched")
        let library = try LibraryStore(path: cli.sandbox.libraryPath)
        #expect(try library.conversations().count == 2)
    }

    /// A conversation with no title reads `Untitled` in `chats`, in `show`'s heading and in `--json`'s
    /// `display_title`, as the REPL and the editors show it (the engine's one rule).
    @Test func anUntitledConversationIsShownAsUntitledByTheCommands() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["ask", "echo:one"]).status == 0)
        let library = try LibraryStore(path: cli.sandbox.libraryPath)
        let conversation = try #require(try library.conversations().first)
        try library.rename(conversationId: conversation.id, to: "")
        let chats = try await cli.run(["chats"])
        #expect(chats.output.contains(String(conversation.id.prefix(8)) + "  Untitled"), "\(chats.output)")
        #expect(try await cli.run(["show", String(conversation.id.prefix(8))]).output.hasPrefix("# Untitled\n"))
        #expect(try await cli.run(["chats", "--json"]).output.contains(#""display_title":"Untitled""#))
    }

    @Test func aReplyThatDoesNotExistIsRefusedAndNothingIsMade() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        _ = try await threeTurns(cli, fixture)
        let refused = try await cli.run(["fork", "echo:one", "--at", "4"])
        #expect(refused.status == 5, "not found")
        #expect(refused.errors.contains("There is no reply 4: this conversation has 3 replies"), "\(refused)")
        #expect(
            try await cli.run(["fork", "echo:one", "--at", "zero"]).errors.contains("--at must be a positive number"))
        #expect(try LibraryStore(path: cli.sandbox.libraryPath).conversations().count == 1)
    }

    @Test func replForkSwitchesToTheForkAtTheReplyNamed() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let responses = try await threeTurns(cli, fixture)
        let terminal = try Pseudoterminal(try BuiltProduct.path("llmster"), ["-c"], environment: cli.environment)
        _ = try await terminal.waitFor("› ")
        var mark = terminal.mark
        terminal.send("/fork 1\r")
        let forked = try await terminal.waitFor("› ", after: mark + 8)
        #expect(forked.contains("Forked at reply 1 as echo:one (fork); echo:one is unchanged"), "\(forked)")
        mark = terminal.mark
        terminal.send("echo:from the first answer\r")
        _ = try await terminal.waitFor("› ", after: mark + 28)
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("previous_response_id") == responses[0])
        mark = terminal.mark
        terminal.send("/chats\r")
        let listed = try await terminal.waitFor("› ", after: mark + 7)
        #expect(
            listed.contains("echo:one (fork of echo:one at reply 1)") && !listed.contains("(fork) (fork of"),
            "\(listed)")
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0)
    }

    @Test func rpcForksAndSaysWhereFrom() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        _ = try await threeTurns(cli, fixture)
        let library = try LibraryStore(path: cli.sandbox.libraryPath)
        let source = try #require(try library.conversations().first)
        let requests = """
            {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}
            {"jsonrpc":"2.0","id":1,"method":"conversations/fork","params":{"conversationId":"\(source.id)","atReply":1}}
            {"jsonrpc":"2.0","id":2,"method":"conversations/fork","params":{"conversationId":"\(source.id)","atReply":9}}
            {"jsonrpc":"2.0","id":3,"method":"shutdown"}

            """
        let result = try await cli.run(["rpc"], input: requests)
        let lines = result.output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let first = try #require(lines.first { $0["id"] as? Int == 1 }?["result"] as? [String: Any], "\(result)")
        let origin = try #require(first["forkedFrom"] as? [String: Any])
        #expect(origin["conversationId"] as? String == source.id)
        #expect(origin["reply"] as? Int == 1)
        let forkId = try #require((first["conversation"] as? [String: Any])?["id"] as? String)
        #expect(try library.messages(conversationId: forkId).map(\.text) == ["echo:one", "one"])
        let refused = try #require(lines.first { $0["id"] as? Int == 2 }?["error"] as? [String: Any], "\(result)")
        #expect((refused["message"] as? String)?.contains("There is no reply 9") == true, "\(refused)")
    }

    /// After the server restarted, a fork's first message meets the lost context as any conversation does: it is
    /// explained, and a fresh context continues.
    @Test func aForkAfterARestartOffersAFreshContext() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        _ = try await threeTurns(cli, fixture)
        fixture.simulator.reset()
        #expect(try await cli.run(["fork", "echo:one", "--at", "1", "--title", "After restart"]).status == 0)
        let lost = try await cli.run(["ask", "--chat", "After restart", "echo:still there?"])
        #expect(lost.status == 1, "\(lost)")
        #expect(
            lost.errors.contains("no longer has this conversation's context")
                && lost.errors.contains("--fresh-context"), "\(lost)")
        let fresh = try await cli.run(["ask", "--chat", "After restart", "--fresh-context"])
        #expect(fresh.status == 0, "\(fresh)")
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("previous_response_id") == nil)
    }

    @Test func listingsMarkForksWithWhereTheyCameFrom() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        _ = try await threeTurns(cli, fixture)
        #expect(try await cli.run(["fork", "echo:one", "--at", "2", "--title", "Side path"]).status == 0)
        let chats = try await cli.run(["chats"])
        let lines = chats.output.split(separator: "\n")
        #expect(lines.contains { $0.contains("Side path (fork of echo:one at reply 2)") }, "\(chats.output)")
        #expect(
            lines.contains { $0.contains("echo:one") && !$0.contains("fork of") },
            "the source is no fork: \(chats.output)")
        let json = try await cli.run(["chats", "--json"])
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        let fork = try #require(objects.first { $0["title"] as? String == "Side path" })
        let origin = try #require(fork["forked_from"] as? [String: Any], "\(fork)")
        #expect(origin["title"] as? String == "echo:one" && origin["reply"] as? Int == 2)
        #expect(objects.first { $0["title"] as? String == "echo:one" }?["forked_from"] is NSNull)

        let requests = """
            {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}
            {"jsonrpc":"2.0","id":1,"method":"conversations/list","params":{}}
            {"jsonrpc":"2.0","id":2,"method":"shutdown"}

            """
        let rpc = try await cli.run(["rpc"], input: requests)
        let replies = rpc.output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let list = try #require(
            (replies.first { $0["id"] as? Int == 1 }?["result"] as? [String: Any])?["conversations"]
                as? [[String: Any]], "\(rpc)")
        let listed = try #require(list.first { $0["title"] as? String == "Side path" })
        #expect((listed["forkedFrom"] as? [String: Any])?["reply"] as? Int == 2, "\(listed)")
        #expect(list.first { $0["title"] as? String == "echo:one" }?["forkedFrom"] is NSNull)
    }

    @Test func aBackupAndItsRestoreKeepWhereAForkCameFrom() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        _ = try await threeTurns(cli, fixture)
        #expect(try await cli.run(["fork", "echo:one", "--at", "1", "--title", "Side path"]).status == 0)
        let archive = cli.sandbox.root + "/library.llmster-backup"
        #expect(try await cli.run(["backup", "-o", archive]).status == 0)
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: cli.sandbox.libraryPath + suffix)
        }
        #expect(try await cli.run(["ask", "echo:a new library"]).status == 0)
        #expect(!(try await cli.run(["chats"]).output.contains("Side path")))
        let restored = try await cli.run(["restore", archive, "--yes"])
        #expect(restored.status == 0, "\(restored)")
        #expect(try await cli.run(["show", "Side path"]).output.contains("forked from echo:one at reply 1"))
        #expect(try await cli.run(["chats"]).output.contains("Side path (fork of echo:one at reply 1)"))
    }
}
