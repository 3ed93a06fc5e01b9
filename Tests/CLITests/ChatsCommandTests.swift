import Foundation
import TestSupport
import Testing

/// `llmster chats --folder F`: the folder and its sub-folders, said so in the listing.
@Suite(.spawnsProcesses) struct ChatsCommandTests {
    @Test func aFolderIncludesItsSubFolders() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        for (folder, prompt) in [
            ("Work/Clients", "echo:Client call"), ("Work", "echo:Weekly plan"), ("Workshop", "echo:Sawdust"),
            ("Home", "echo:Groceries")
        ] {
            #expect(try await cli.run(["ask", "--folder", folder, prompt]).status == 0)
        }
        let listing = try await cli.run(["chats", "--folder", "work"])
        #expect(listing.status == 0, "\(listing)")
        #expect(listing.output.hasPrefix("In Work and its sub-folders (Work/Clients):\n"), "\(listing.output)")
        #expect(listing.output.contains("echo:Client call") && listing.output.contains("Work/Clients"))
        #expect(listing.output.contains("echo:Weekly plan"))
        #expect(!listing.output.contains("Sawdust") && !listing.output.contains("Groceries"), "\(listing.output)")

        let json = try await cli.run(["chats", "--folder", "Work", "--json"])
        #expect(
            json.output.contains("\"folder\":\"Work/Clients\"") || json.output.contains("\"folder\": \"Work/Clients\""),
            "\(json.output)")
        #expect(!json.output.contains("In Work"))

        let leaf = try await cli.run(["chats", "--folder", "Work/Clients"])
        #expect(leaf.output.hasPrefix("In Work/Clients:\n"), "\(leaf.output)")
        #expect(!leaf.output.contains("Weekly plan"))

        let unknown = try await cli.run(["chats", "--folder", "Nowhere"])
        #expect(unknown.status == 5, "\(unknown)")
    }

    /// `--json` on a narrow terminal is still one line of JSON: wrapping it at spaces inside strings would break it.
    @Test func jsonOnATerminalIsNeverWrapped() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(
            try await cli.run(["ask", "echo:a title long enough to pass the edge of a forty column terminal"]).status
                == 0)
        let terminal = try Pseudoterminal(
            try BuiltProduct.path("llmster"), ["chats", "--json"], environment: cli.environment,
            width: 40, height: 20)
        #expect(try await terminal.waitForExit() == 0)
        let line = terminal.text.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!line.contains("\n") && (try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(line)")
    }
}
