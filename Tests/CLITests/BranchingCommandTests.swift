import Foundation
import Library
import Simulator
import TestSupport
import Testing

/// `ask` after a failed first send, and `show` with alternatives.
@Suite(.spawnsProcesses) struct BranchingCommandTests {
    @Test(arguments: ["HTTP error", "server down"])
    func aFailedFirstAskLeavesNoUntitledChat(failure: String) async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: failure == "server down" ? "http://127.0.0.1:\(unusedPort())" : fixture.url)
        let result = try await cli.run(["ask", "[[sim:status=500]] hello"])
        #expect(result.status != 0, "\(result)")
        #expect(!result.errors.isEmpty)
        let chats = try await cli.run(["chats", "--json"])
        let list = try JSONSerialization.jsonObject(with: Data(chats.output.utf8)) as? [[String: Any]]
        #expect(list?.isEmpty == true, "\(chats.output)")
    }

    @Test func showMarksRepliesWithAlternativesAndListsThem() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["ask", "echo:alpha"]).status == 0)
        do {
            let library = try LibraryStore(path: cli.sandbox.libraryPath)
            let conversation = try #require(try library.conversations().first)
            let messages = try library.messages(conversationId: conversation.id)
            try library.rewindBranch(conversationId: conversation.id, to: messages[0].id)
            try library.appendMessage(
                conversationId: conversation.id, role: .assistant, MessageContent(text: "second answer"))
        }
        let plain = try await cli.run(["show", "echo:alpha"])
        #expect(plain.output.contains("(2 of 2)"), "\(plain.output)")
        #expect(plain.output.contains("second answer"))
        #expect(!plain.output.contains("\nalpha\n"), "the replaced answer is not in the transcript")
        let full = try await cli.run(["show", "echo:alpha", "--alternatives"])
        #expect(full.output.contains("Alternative 1 of 2"), "\(full.output)")
        #expect(full.output.contains("\nalpha\n"))
    }
}
