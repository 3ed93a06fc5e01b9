import Chat
import Foundation
import HTTP
import Library
import SystemSupport
import TestSupport
import Testing

/// Context items from real files, a real shell and a loopback page server.
@Suite struct ContextItemTests {
    let limits = ContextLimits(item: 4096, message: 16384)

    func directory(_ files: [String: String]) throws -> String {
        let root = NSTemporaryDirectory() + "llmster-context-\(UUID().uuidString)"
        for (path, text) in files {
            let full = root + "/" + path
            try FileManager.default.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: full, atomically: true, encoding: .utf8)
        }
        return root
    }

    @Test func gitignoreNegationAnchorsAndNestedFilesAreFollowed() throws {
        let root = try directory([
            ".gitignore": "*.txt\n!keep.txt\n/top.md\ndocs/**/draft.md\n",
            "keep.txt": "kept\n", "drop.txt": "dropped\n", "top.md": "anchored\n",
            "sub/top.md": "not anchored here\n", "docs/a/b/draft.md": "draft\n", "docs/a/final.md": "final\n",
            "sub/.gitignore": "secret.md\n", "sub/secret.md": "nested rule\n"
        ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let reading = try ContextReader(limits: limits, directory: root).read(path: ".")
        #expect(reading.items.map(\.name) == ["docs/a/final.md", "keep.txt", "sub/top.md"])
        #expect(Set(reading.skipped.map(\.path)) == ["docs/a/b/draft.md", "drop.txt", "top.md", "sub/secret.md"])
    }

    @Test func aWalkStopsAtTheMessageLimitAndSaysWhere() throws {
        let root = try directory(
            Dictionary(
                uniqueKeysWithValues: (0..<20).map {
                    (String(format: "f%02d.txt", $0), String(repeating: "x", count: 3000))
                }))
        defer { try? FileManager.default.removeItem(atPath: root) }
        let reading = try ContextReader(limits: ContextLimits(item: 4096, message: 8000), directory: root).read(
            path: ".")
        #expect(
            reading.items.map(\.name) == ["f00.txt", "f01.txt", "f02.txt"],
            "read until past the limit, so the refusal can name the sizes")
        #expect(
            reading.skipped.map(\.description) == [
                "f03.txt (past context_message_limit: it and everything after it not read)"
            ])
        #expect(throws: ContextError.self) { try ContextLimits(item: 4096, message: 8000).check(reading.items) }
    }

    @Test func aGlobGivesItsMatchesInNameOrder() throws {
        let root = try directory(["b.swift": "b\n", "a.swift": "a\n", "c.md": "c\n"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let reading = try ContextReader(limits: limits, directory: root).read(path: "*.swift")
        #expect(reading.items.map(\.name) == ["a.swift", "b.swift"])
        #expect(throws: ContextError.noMatch("*.rs")) {
            try ContextReader(limits: limits, directory: root).read(path: "*.rs")
        }
    }

    @Test func commandOutputKeepsItsExitStatusAndSaysWhenItWasCut() throws {
        let item = try ContextCommand.run(
            "echo out; echo err >&2; exit 3", limits: limits, timeout: 60, stop: StopRequest())
        #expect(item.text == "out\nerr\n")
        #expect(item.source == .command(exitStatus: 3))
        #expect(item.heading == "Output of `echo out; echo err >&2; exit 3` (exit status 3):")
        #expect(item.chip.hasSuffix(" · exit status 3"))

        let long = try ContextCommand.run("yes line | head -c 10000", limits: limits, timeout: 60, stop: StopRequest())
        #expect(long.byteCount == 4096)
        #expect(long.cutFrom == 10000)
        #expect(long.chip.hasSuffix(" · cut from 10 KB"), "never cut silently: \(long.chip)")
        #expect(long.heading.contains("only the first 4096 of 10000 bytes"), "the model is told too")

        let endless = try ContextCommand.run("yes", limits: limits, timeout: 60, stop: StopRequest())
        #expect(endless.cutFrom ?? 0 > 4096, "a command that never stops is stopped once far past the cap")
    }

    @Test func anAttachmentGivesBackTheItemWithItsSource() throws {
        let fetched = Date(timeIntervalSince1970: 1_790_000_000)
        for item in [
            ContextItem(name: "https://example.com/", source: .page(fetchedAt: fetched), text: "page"),
            ContextItem(name: "make", source: .command(exitStatus: 2), text: "out", cutFrom: 9000),
            ContextItem(name: "notes.md", source: .file, text: "notes"),
            ContextItem(name: "*scratch*", source: .text, text: "buffer")
        ] {
            let attachment = Attachment(
                id: "1", messageId: "m", name: item.name, mimeType: item.mimeType, bytes: Array(item.text.utf8),
                sha256: "")
            #expect(ContextItem(attachment: attachment) == item)
        }
        let image = Attachment(id: "2", messageId: "m", name: "cat.png", mimeType: "image/png", bytes: [1], sha256: "")
        #expect(ContextItem(attachment: image) == nil, "images stay images")
    }

    @Test func deeplyNestedHTMLIsReadAndAPageWithoutTextIsRefused() async throws {
        let depth = 100_000
        let nested = String(repeating: "<div>", count: depth) + "deep text" + String(repeating: "</div>", count: depth)
        let pages = try PageServer([
            "/deep": .ok(nested), "/app": .ok("<html><body><script>render()</script></body></html>")
        ])
        let page = ContextPage(
            transport: CurlTransport(), timeouts: HTTPTimeouts(connect: 5, idle: 30),
            limits: ContextLimits(item: 1 << 20, message: 1 << 20))
        #expect(try await page.fetch(pages.url + "/deep").text == "deep text", "the tree is walked without recursion")
        await #expect(throws: ContextError.noReadableText(pages.url + "/app"), "an empty item is never added silently")
        {
            try await page.fetch(pages.url + "/app")
        }
    }
}
