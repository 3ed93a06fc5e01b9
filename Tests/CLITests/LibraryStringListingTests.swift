import Foundation
import Library
import TestSupport
import Testing

/// Library strings from elsewhere (an imported `.llmster`) cannot break a listing's rows or reach a file viewer raw.
@Suite(.spawnsProcesses) struct LibraryStringListingTests {
    /// A conversation whose title has a newline and a C1 control and whose message has C1 and bidi controls, exported.
    private func hostileExport(_ cli: CLI) async throws -> String {
        #expect(try await cli.run(["ask", "echo:hello"]).status == 0)
        let store = try LibraryStore(path: cli.sandbox.libraryPath)
        let conversation = try #require(try store.conversations().first)
        try store.rename(conversationId: conversation.id, to: "First line\nSecond line \u{9B}31mred")
        _ = try store.appendMessage(
            conversationId: conversation.id, role: .user,
            MessageContent(text: "csi \u{9B}2J dcs \u{90}q reversed \u{202E}txt.exe isolate \u{2066}x\u{2069}"))
        let file = cli.sandbox.root + "/hostile.llmster"
        let exported = try await cli.run(["export", conversation.id, "-o", file])
        try #require(exported.status == 0, "\(exported)")
        return file
    }

    @Test func aTitleWithANewlineStaysOnItsRowInChatsAndSearchAndInTheImportMessage() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let file = try await hostileExport(cli)
        let imported = try await cli.run(["import", "--as-new", file])
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.output.hasPrefix("Imported \"First line␊Second line ␛[31mred\" as "), "\(imported.output)")
        #expect(imported.output.split(separator: "\n").count == 1)

        let chats = try await cli.run(["chats"])
        let rows = chats.output.split(separator: "\n")
        #expect(rows.count == 3, "a header and one row for each conversation:\n\(chats.output)")
        #expect(rows.dropFirst().allSatisfy { $0.contains("First line␊Second line ␛[31mred") }, "\(chats.output)")

        let search = try await cli.run(["search", "Second"])
        #expect(search.output.split(separator: "\n").count == 3, "\(search.output)")
        #expect(!search.output.contains("\u{9B}"))
    }

    @Test func anExportEscapesC1AndBidiControlsInItsJSON() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let bytes = try await Data(contentsOf: URL(fileURLWithPath: try hostileExport(cli)))
        // The file's frame lengths and checksum are binary, so the controls are looked for beside their text.
        for raw in [
            "csi \u{9B}2J", "dcs \u{90}q", "reversed \u{202E}txt", "isolate \u{2066}x\u{2069}", "First line\nSecond"
        ] {
            #expect(bytes.range(of: Data(raw.utf8)) == nil, "\(raw.debugDescription) is in the file raw")
        }
        for escaped in [
            #"csi \u009b2J"#, #"dcs \u0090q"#, #"reversed \u202etxt"#, #"isolate \u2066x\u2069"#, #"First line\nSecond"#
        ] {
            #expect(bytes.range(of: Data(escaped.utf8)) != nil, "\(escaped) is not in the file")
        }
        let elsewhere = try CLI(server: fixture.url)
        #expect(try await elsewhere.run(["import", cli.sandbox.root + "/hostile.llmster"]).status == 0)
        let store = try LibraryStore(path: elsewhere.sandbox.libraryPath)
        let conversation = try #require(try store.conversations().first)
        #expect(
            try store.messages(conversationId: conversation.id).last?.text
                == "csi \u{9B}2J dcs \u{90}q reversed \u{202E}txt.exe isolate \u{2066}x\u{2069}",
            "the text comes back as it was")
    }
}
