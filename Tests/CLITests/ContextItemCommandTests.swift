import Foundation
import Library
import Simulator
import TestSupport
import Testing

/// `llmster ask -f`: files, directories, standard input and pages as context, against the simulator over loopback.
@Suite(.spawnsProcesses) struct ContextItemCommandTests {
    @Test func filesGoBeforeThePromptAsNamedBlocksAndAreSavedWithTheMessage() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        try cli.sandbox.write("# Notes\nship on Friday\n", to: "work/notes.md")
        try cli.sandbox.write("let answer = 42\n```\n", to: "work/main.swift")
        let notes = cli.sandbox.root + "/work/notes.md"
        let code = cli.sandbox.root + "/work/main.swift"
        let result = try await cli.run(["ask", "-f", notes, "--file", code, "echo:read them"])
        #expect(result.status == 0, "\(result)")
        #expect(result.output == "read them\n")
        #expect(result.errors.contains("Context: \(notes) · 23 B · ~"), "each item is announced by its chip: \(result)")

        let input = try #require(fixture.requests(to: "/api/v1/chat").last?.field("input"))
        #expect(
            input
                == "File \(notes):\n```\n# Notes\nship on Friday\n```\n\nFile \(code):\n````\nlet answer = 42\n```\n````\n\necho:read them",
            "each item is a fenced block under its name (a fence longer than the file's own), then the prompt")

        let show = try await cli.run(["show", "echo:read them"])
        #expect(show.output.contains("📎 \(notes) · 23 B · ~"), "the library keeps the items with the message: \(show)")
        #expect(show.output.contains("📎 \(code) · "))
        #expect(
            !show.output.contains("ship on Friday"), "show lists the items, not their text, under the message as typed")

        // Sent again as it was sent the first time: a regenerated reply gets the same blocks.
        let retry = try await cli.run(["ask", "--chat", "echo:read them", "--fresh-context"])
        #expect(retry.status == 0, "\(retry)")
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("input") == input)
    }

    @Test func itemsTravelInExportsAndComeBackOnImport() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        try cli.sandbox.write("line one\n", to: "todo.txt")
        let todo = cli.sandbox.root + "/todo.txt"
        #expect(try await cli.run(["ask", "-f", todo, "echo:noted"]).status == 0)
        let file = cli.sandbox.root + "/chat.llmster"
        let exported = try await cli.run(["export", "echo:noted", "-o", file])
        #expect(exported.status == 0, "\(exported)")
        let elsewhere = try CLI(server: fixture.url)
        #expect(try await elsewhere.run(["import", file]).status == 0)
        let show = try await elsewhere.run(["show", "echo:noted"])
        #expect(show.output.contains("📎 \(todo) · 9 B · ~"), "the item came back as a context item: \(show)")
        let retry = try await elsewhere.run(["ask", "--chat", "echo:noted", "--fresh-context"])
        #expect(retry.status == 0, "\(retry)")
        #expect(
            fixture.requests(to: "/api/v1/chat").last?.field("input")
                == "File \(todo):\n```\nline one\n```\n\necho:noted",
            "the imported copy resends its item as it was first sent")
    }

    @Test func itemsAloneMakeAMessageTitledByTheirNames() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        try cli.sandbox.write("echo:summary\n", to: "todo.md")
        let todo = cli.sandbox.root + "/todo.md"
        let result = try await cli.run(["ask", "-f", todo])
        #expect(result.status == 0, "\(result)")
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("input") == "File \(todo):\n```\necho:summary\n```")
        let chats =
            try JSONSerialization.jsonObject(with: Data(try await cli.run(["chats", "--json"]).output.utf8))
            as? [[String: Any]]
        #expect(chats?.first?["title"] as? String == "todo.md", "the conversation is titled by the item")
    }

    @Test func itemsTravelInBackups() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let page = try PageServer(["/spec": .ok("<p>the spec</p>")])
        #expect(try await cli.run(["ask", "-f", page.url + "/spec", "echo:read"]).status == 0)
        let archive = cli.sandbox.root + "/library.backup"
        #expect(try await cli.run(["backup", "-o", archive]).status == 0)
        let target = try CLI(server: fixture.url)
        let restored = try await target.run(["restore", archive, "--yes"])
        #expect(restored.status == 0, "\(restored)")
        let show = try await target.run(["show", "echo:read"])
        #expect(show.output.contains("📎 \(page.url)/spec · 8 B · ~"), "\(show)")
    }

    @Test func aDirectoryGivesItsTextFilesAndListsWhatItSkipped() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        try cli.sandbox.write("build/\n*.log\n", to: "project/.gitignore")
        try cli.sandbox.write("print(1)\n", to: "project/src/a.swift")
        try cli.sandbox.write("notes\n", to: "project/README")
        try cli.sandbox.write("noise\n", to: "project/run.log")
        try cli.sandbox.write("artifact\n", to: "project/build/out.txt")
        try cli.sandbox.write("secret\n", to: "project/.env")
        try Data([0x7F, 0x45, 0x4C, 0x46, 0, 1, 2]).write(to: URL(fileURLWithPath: cli.sandbox.root + "/project/tool"))
        try Data([0xC3, 0x28, 0x41]).write(to: URL(fileURLWithPath: cli.sandbox.root + "/project/latin1.txt"))
        let directory = cli.sandbox.root + "/project"
        let result = try await cli.run(["ask", "-f", directory, "echo:ok"])
        #expect(result.status == 0, "\(result)")
        #expect(result.errors.contains("Skipped \(directory)/build (ignored by .gitignore)"), "\(result)")
        #expect(result.errors.contains("Skipped \(directory)/run.log (ignored by .gitignore)"))
        #expect(result.errors.contains("Skipped \(directory)/tool (binary)"))
        #expect(result.errors.contains("Skipped \(directory)/latin1.txt (not UTF-8 text)"))
        #expect(!result.errors.contains(".env"), "hidden entries are passed over silently")
        let input = try #require(fixture.requests(to: "/api/v1/chat").last?.field("input"))
        #expect(input.contains("File \(directory)/README:\n```\nnotes\n```"))
        #expect(input.contains("File \(directory)/src/a.swift:\n```\nprint(1)\n```"))
        #expect(!input.contains("artifact") && !input.contains("secret") && !input.contains("noise"))
    }

    @Test func aBinaryOrUndecodableFileNamedOutrightIsRefusedAndNothingIsSent() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        try Data([0x89, 0x50, 0x4E, 0x47, 0, 0, 0]).write(to: URL(fileURLWithPath: cli.sandbox.root + "/image.png"))
        try Data([0x66, 0x6F, 0xFF, 0x6F]).write(to: URL(fileURLWithPath: cli.sandbox.root + "/bad.txt"))
        let binary = try await cli.run(["ask", "-f", cli.sandbox.root + "/image.png", "echo:no"])
        #expect(binary.status == 2, "\(binary)")
        #expect(
            binary.errors.contains(
                "image.png is a binary file (it contains NUL bytes); only text files can be sent as context"))
        let invalid = try await cli.run(["ask", "-f", cli.sandbox.root + "/bad.txt", "echo:no"])
        #expect(invalid.errors.contains("bad.txt is not valid UTF-8 text"), "\(invalid)")
        let missing = try await cli.run(["ask", "-f", cli.sandbox.root + "/nothing-here.md", "echo:no"])
        #expect(missing.errors.contains("nothing-here.md does not exist"), "\(missing)")
        #expect(fixture.requests(to: "/api/v1/chat").isEmpty)
        #expect(
            try await cli.run(["chats", "--json"]).output.trimmingCharacters(in: .whitespacesAndNewlines) == "[]",
            "nothing is saved either")
    }

    @Test func sizeCapsFromTheConfigRefuseWithTheSizes() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        try cli.sandbox.write("context_item_limit = 1K\ncontext_message_limit = 3K\n", to: "config/llmster/config")
        try cli.sandbox.write(String(repeating: "x", count: 2000) + "\n", to: "big.txt")
        try cli.sandbox.write(String(repeating: "y", count: 900) + "\n", to: "a.txt")
        let big = try await cli.run(["ask", "-f", cli.sandbox.root + "/big.txt", "echo:no"])
        #expect(big.status == 2, "\(big)")
        #expect(
            big.errors.contains(
                "big.txt is 2 KB, larger than the context item limit (context_item_limit = 1K); nothing was added"),
            "\(big)")
        #expect(!big.errors.contains("usage:"), "a refused item is no misuse: no usage line follows \(big.errors)")
        let a = cli.sandbox.root + "/a.txt"
        let many = try await cli.run(["ask", "-f", a, "-f", a, "-f", a, "-f", a, "echo:no"])
        #expect(
            many.errors.contains(
                "the context items come to 3.6 KB, more than one message may carry (context_message_limit = 3K); nothing was sent"
            ), "\(many)")
        #expect(many.errors.contains("\(a) · 901 B · ~"), "the refusal lists each item with its size")
        #expect(fixture.requests(to: "/api/v1/chat").isEmpty)
    }

    @Test func anOverflowOfTheModelsContextIsRefusedBeforeSendingWithTheItemSizes() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        try cli.sandbox.write(String(repeating: "word ", count: 60_000), to: "long.txt")
        let result = try await cli.run(["ask", "-m", "acme/tiny-1b", "-f", cli.sandbox.root + "/long.txt", "echo:no"])
        #expect(result.status == 2, "a usage error, as documented: \(result)")
        #expect(
            result.errors.contains(
                "This message and its context items would overflow the context (ctx 75k/4k 1832%):\n"),
            "\(result)")
        #expect(
            result.errors.contains("  \(cli.sandbox.root)/long.txt · 300 KB · ~750"),
            "each item with its size: \(result)")
        #expect(fixture.requests(to: "/api/v1/chat").isEmpty, "nothing is sent")
        #expect(
            try await cli.run(["chats", "--json"]).output.trimmingCharacters(in: .whitespacesAndNewlines) == "[]",
            "and nothing is saved")
    }

    @Test func standardInputIsAnItemWithDash() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let result = try await cli.run(["ask", "-f", "-", "echo:reviewed"], input: "diff --git a b\n")
        #expect(result.status == 0, "\(result)")
        #expect(
            fixture.requests(to: "/api/v1/chat").last?.field("input")
                == "standard input:\n```\ndiff --git a b\n```\n\necho:reviewed")
    }

    @Test func aPageIsFetchedAsReadableTextWithItsURLAndFetchTime() async throws {
        let fixture = try SimulatorFixture()
        let pages = try PageServer([
            "/article": .ok(
                """
                <!doctype html><html><head><title>Release notes</title><style>p { color: red }</style>
                <script>alert("x")</script></head><body><nav>Home | About</nav>
                <h1>Version 2</h1><p>Faster   <b>startup</b>,
                fewer bugs.</p><ul><li>one</li><li>two &amp; three</li></ul><pre>  keep
                  spacing</pre></body></html>
                """),
            "/moved": .redirect("/article"),
            "/data.json": .ok(#"{"ok": true}"#, type: "application/json"),
            "/image": .page(status: 200, headers: ["Content-Type": "image/png"], body: [0x89, 0x50]),
            "/huge": .ok(String(repeating: "z", count: 9 << 20), type: "text/plain"),
            "/slow": .stall(contentType: "text/plain")
        ])
        let cli = try CLI(server: fixture.url)
        let result = try await cli.run(["ask", "-f", pages.url + "/moved", "-f", pages.url + "/data.json", "echo:ok"])
        #expect(result.status == 0, "\(result)")
        let input = try #require(fixture.requests(to: "/api/v1/chat").last?.field("input"))
        #expect(
            input.hasPrefix("Page \(pages.url)/moved (fetched 20"),
            "the page is named by its URL with the fetch time: \(input)")
        #expect(
            input.contains(
                "```\n# Release notes\n\n# Version 2\n\nFaster startup, fewer bugs.\n\n- one\n\n- two & three\n\n  keep\n  spacing\n```"
            ),
            "HTML becomes readable text; scripts, styles and navigation are dropped: \(input)")
        #expect(!input.contains("alert") && !input.contains("color: red") && !input.contains("Home | About"))
        #expect(input.contains("Page \(pages.url)/data.json (fetched "))
        #expect(input.contains(#"{"ok": true}"#))

        let image = try await cli.run(["ask", "-f", pages.url + "/image", "echo:no"])
        #expect(image.errors.contains("/image is image/png, not text, HTML or JSON; nothing was added"), "\(image)")
        let missing = try await cli.run(["ask", "-f", pages.url + "/gone", "echo:no"])
        #expect(missing.errors.contains("/gone answered with HTTP status 404; nothing was added"), "\(missing)")
        let huge = try await cli.run(["ask", "-f", pages.url + "/huge", "echo:no"])
        #expect(
            huge.errors.contains(
                "/huge is larger than the context item limit (context_item_limit = 512K); nothing was added"), "\(huge)"
        )
        try cli.sandbox.write("idle_timeout = 1\n", to: "config/llmster/config")
        let slow = try await cli.run(["ask", "-f", pages.url + "/slow", "echo:no"])
        #expect(
            slow.errors.contains("cannot fetch \(pages.url)/slow: the server stopped sending data (timed out)"),
            "\(slow)")
        #expect(fixture.requests(to: "/api/v1/chat").count == 1, "a page that cannot be used sends nothing")
    }
}
