import Foundation
import TestSupport
import Testing

/// Help and tables laid out to the terminal: hanging indents at word boundaries, columns that give way, and no
/// line wider than the terminal, at 60, 80 and 100 columns.
@Suite(.spawnsProcesses) struct LayoutTests {
    /// Runs `llmster ARGUMENTS` on a `width`-column pseudo-terminal until `last` appears; returns its lines.
    func onTerminal(_ cli: CLI, _ arguments: [String], width: Int, last: String) async throws -> [String] {
        let terminal = try Pseudoterminal(
            try BuiltProduct.path("llmster"), arguments, environment: cli.environment,
            width: width, height: 50)
        _ = try await terminal.waitFor(last)
        #expect(try await terminal.waitForExit() == 0)
        return terminal.text.components(separatedBy: "\n")
    }

    func expectFits(_ lines: [String], width: Int, _ what: String) {
        for line in lines {
            #expect(line.count <= width, "\(what) at \(width) columns: '\(line)'")
        }
    }

    @Test(arguments: [60, 80, 100])
    func helpWrapsUnderItsColumnAtWordBoundaries(width: Int) async throws {
        let cli = try CLI(server: "http://127.0.0.1:9")
        let lines = try await onTerminal(cli, ["--help"], width: width, last: "143 terminated.")
        expectFits(lines, width: width, "llmster --help")
        let text = lines.joined(separator: "\n")
        let models = try #require(lines.firstIndex { $0.hasPrefix("  models ") })
        let column = lines[models].distance(
            from: lines[models].startIndex,
            to: try #require(lines[models].range(of: "List"))
                .lowerBound)
        // Every continuation of the command list starts at the description column.
        var index = models + 1
        while index < lines.count, !lines[index].isEmpty,
            !lines[index].hasPrefix("  ") || lines[index].hasPrefix(String(repeating: " ", count: column))
        {
            if lines[index].hasPrefix(String(repeating: " ", count: column)) {
                #expect(lines[index].dropFirst(column).first != " ", "continuation aligned: '\(lines[index])'")
            }
            index += 1
        }
        // Words are whole: each summary word appears unbroken.
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        for word in ["capabilities.", "reachability,", "authentication,", "conversations,", "terminated."] {
            #expect(words.contains(Substring(word)), "'\(word)' is not split at \(width) columns")
        }
    }

    @Test(arguments: [60, 80, 100])
    func everyCommandsHelpFitsTheWidth(width: Int) async throws {
        let cli = try CLI(server: "http://127.0.0.1:9", environment: ["COLUMNS": String(width)])
        let help = try await cli.run(["--help"]).output
        let commands = try HelpPages.commandNames(inHelp: help)
        #expect(commands.contains("ask") && commands.contains("completions"))
        for command in commands {
            let result = try await cli.run([command, "--help"])
            #expect(result.status == 0)
            expectFits(result.output.components(separatedBy: "\n"), width: width, "llmster \(command) --help")
            #expect(result.output.contains("\n  -h, --help"), "the options keep their indent: \(command)")
        }
        #expect(
            try await cli.run(["ask", "--help"]).output.contains("[--image FILE]…"), "a bracketed group stays whole")
    }

    @Test(arguments: [60, 80, 100])
    func tablesGiveWayLeastImportantColumnFirst(width: Int) async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["load", "acme/thinker-8b"]).status == 0)
        #expect(
            try await cli.run([
                "ask", "--folder", "Work/Clients/Very Long Client Name",
                "echo:A rather long conversation title that needs cutting somewhere"
            ]).status == 0)

        let models = try await onTerminal(cli, ["models"], width: width, last: "acme/vision-7b")
        expectFits(models, width: width, "llmster models")
        let header = try #require(models.first { $0.hasPrefix("MODEL") })
        #expect(header.contains("LOADED") && header.contains("SIZE"), "the important columns stay: \(header)")
        #expect(models.contains { $0.hasPrefix("acme/toolsmith-12b ") }, "model keys are never cut")
        #expect(header.contains("FORMAT") == (width >= 100), "FORMAT is dropped first: \(header)")
        #expect(header.contains("PARAMS") == (width >= 80), "\(header)")

        let ps = try await onTerminal(cli, ["ps"], width: width, last: " GB")
        expectFits(ps, width: width, "llmster ps")

        let chats = try await onTerminal(cli, ["chats"], width: width, last: "UPDATED")
        expectFits(chats, width: width, "llmster chats")
        let chatsHeader = try #require(chats.first { $0.hasPrefix("ID") })
        #expect(chatsHeader.contains("TITLE") && chatsHeader.contains("UPDATED"), "\(chatsHeader)")

        let doctor = try Pseudoterminal(
            try BuiltProduct.path("llmster"), ["--server", "http://127.0.0.1:\(unusedPort())", "doctor"],
            environment: cli.environment, width: width, height: 50)
        _ = try await doctor.waitFor("start`.")
        #expect(try await doctor.waitForExit() == 3)
        let advice = doctor.text.components(separatedBy: "\n")
        expectFits(advice, width: width, "llmster doctor")
        let failing = try #require(advice.firstIndex { $0.hasPrefix("FAIL  reachable   ") })
        #expect(advice[failing + 1].hasPrefix(String(repeating: " ", count: 18)), "a hanging indent: \(advice)")

        let piped = try await cli.run(["models"])
        #expect(
            piped.output.contains("reasoning(off/low/medium/high, default medium)"),
            "piped output keeps whole cells for scripts")
    }

    /// The columns `line` takes on a terminal that counts code points (`codepoint`) or clusters: CJK and emoji two,
    /// a zero-width joiner none, the rest of this suite's text one.
    func columns(_ line: String, codepoint: Bool = false) -> Int {
        func width(_ scalar: Unicode.Scalar) -> Int {
            scalar.value == 0x200D ? 0 : (0x3040...0x9FFF).contains(scalar.value) || scalar.value >= 0x1F000 ? 2 : 1
        }
        return codepoint
            ? line.unicodeScalars.map(width).reduce(0, +)
            : line.map { $0.unicodeScalars.first.map(width) ?? 0 }.reduce(0, +)
    }

    @Test(arguments: [("C.UTF-8", "…"), ("C", "...")])
    func wideTitlesAreCutToTheirColumnWithTheLocalesEllipsis(locale: String, ellipsis: String) async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url, environment: ["COLUMNS": "40", "LANG": locale])
        #expect(try await cli.run(["ask", "日本語の長い会話のタイトルはここで切られます"]).status == 0)
        let lines = try await cli.run(["chats"]).output.split(separator: "\n").map(String.init)
        for line in lines { #expect(columns(line) <= 40, "'\(line)'") }
        let header = try #require(lines.first { $0.hasPrefix("ID") })
        let row = try #require(lines.first { $0.contains("日本") })
        #expect(row.contains(ellipsis) && (ellipsis == "…" || !row.contains("…")), "the \(locale) ellipsis: \(row)")
        // The cut title is padded by display width: the date starts under UPDATED.
        let updated = try #require(header.range(of: "UPDATED"))
        #expect(
            columns(String(row.dropLast(16))) == columns(String(header[..<updated.lowerBound])), "\(header)\n\(row)")
    }

    @Test(arguments: ["codepoint", "grapheme"])
    func tablesMeasureEmojiByTheWidthMode(mode: String) async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url, environment: ["COLUMNS": "40"])
        try cli.sandbox.write("width_mode = \(mode)\n", to: "config/llmster/config")
        #expect(try await cli.run(["ask", "👨‍👩‍👧‍👦👨‍👩‍👧‍👦 family reunion notes"]).status == 0)
        let lines = try await cli.run(["chats"]).output.split(separator: "\n").map(String.init)
        let codepoint = mode == "codepoint"
        for line in lines { #expect(columns(line, codepoint: codepoint) <= 40, "'\(line)'") }
        let header = try #require(lines.first { $0.hasPrefix("ID") })
        let row = try #require(lines.first { $0.contains("👨‍👩‍👧‍👦") })
        let updated = try #require(header.range(of: "UPDATED"))
        #expect(
            columns(String(row.dropLast(16)), codepoint: codepoint) == updated.lowerBound.utf16Offset(in: header),
            "the date starts under UPDATED as a \(mode) terminal draws it:\n\(header)\n\(row)")
    }

    @Test(arguments: [60, 100])
    func theRestorePreviewFitsTheTerminal(width: Int) async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["ask", "keep this"]).status == 0)
        let archive =
            cli.sandbox.root + "/a-backup-file-whose-name-is-longer-than-a-narrow-terminal-line.llmster-backup"
        #expect(try await cli.run(["backup", "-o", archive]).status == 0)
        let lines = try await onTerminal(cli, ["restore", archive, "--yes"], width: width, last: "Restored the library")
        expectFits(lines, width: width, "llmster restore")
        #expect(lines.contains { $0.hasPrefix("conversations  1") }, "the preview is shown: \(lines)")
        let header = try #require(lines.first { $0.hasPrefix("BACKUP") })
        #expect(header.contains(cli.sandbox.root.prefix(8)), "the backup's path heads the preview: \(header)")
    }

    @Test(arguments: [60, 100])
    func warningsWrapBetweenWordsUnderTheMessage(width: Int) async throws {
        let cli = try CLI(server: "http://127.0.0.1:9")
        let terminal = try Pseudoterminal(
            try BuiltProduct.path("llmster"), ["chats", "--folder", "Nowhere"],
            environment: cli.environment, width: width, height: 20)
        #expect(try await terminal.waitForExit() == 5)
        let lines = terminal.text.components(separatedBy: "\n").filter {
            !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        }
        expectFits(lines, width: width, "the warning")
        #expect(lines.first?.hasPrefix("llmster: there is no folder 'Nowhere';") == true, "\(lines)")
        #expect(
            lines.dropFirst().allSatisfy { $0.hasPrefix("         ") && !$0.hasPrefix("          ") },
            "continuations hang under the message: \(lines)")
        let words = lines.joined(separator: " ").split(separator: " ")
        for word in ["`llmster", "chats`", "conversations", "every", "folder"] {
            #expect(words.contains(Substring(word)), "'\(word)' is whole: \(lines)")
        }
    }
}
