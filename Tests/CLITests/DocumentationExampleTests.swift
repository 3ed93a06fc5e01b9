import Foundation
import TestSupport
import Testing

/// Every example command line in README.md's Usage section and in man/llmster.1's EXAMPLES runs, in order,
/// against the simulator with a sandboxed HOME, and succeeds: a broken example fails the build.
@Suite(.spawnsProcesses) struct DocumentationExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The command lines of the first ```sh block under `## Usage`, without their comments.
    static func readmeExamples() throws -> [String] {
        let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8)
        let usage = try #require(readme.components(separatedBy: "\n## Usage\n").dropFirst().first)
        let block = try #require(
            usage.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "\n```").first)
        return block.split(separator: "\n").map { line in
            // A comment starts at "  # " outside quotes; examples keep `#` out of their arguments.
            String(line.components(separatedBy: "  # ").first ?? "").trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
    }

    /// The lines between `.EX` and `.EE` in the EXAMPLES section, roff escapes undone.
    static func manExamples() throws -> [String] {
        let page = try String(contentsOfFile: root + "/man/llmster.1", encoding: .utf8)
        let section = try #require(
            page.components(separatedBy: "\n.SH EXAMPLES\n").dropFirst().first?.components(separatedBy: "\n.SH ").first)
        let block = try #require(
            section.components(separatedBy: ".EX\n").dropFirst().first?.components(separatedBy: "\n.EE").first)
        return block.split(separator: "\n").map {
            $0.replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\e", with: "\\")
        }
    }

    /// Runs `line` with /bin/sh in the sandbox; `restore`, which asks before replacing the library, runs on a
    /// pseudo-terminal and is answered yes.
    func run(_ line: String, environment: [String: String], directory: String) async throws -> (
        status: Int32, output: String
    ) {
        let script = "cd '\(directory)' && " + line
        if line.hasPrefix("llmster restore "), !line.contains("--yes") {
            let terminal = try Pseudoterminal("/bin/sh", ["-c", script], environment: environment)
            _ = try await terminal.waitFor("[y/N] ")
            terminal.send("y\r")
            return (try await terminal.waitForExit(), terminal.text)
        }
        let result = try await ProcessRunner.run("/bin/sh", ["-c", script], environment: environment)
        return (result.status, result.output + result.errors)
    }

    @Test(arguments: ["README.md", "man/llmster.1"])
    func everyExampleRuns(document: String) async throws {
        let examples = document == "README.md" ? try Self.readmeExamples() : try Self.manExamples()
        #expect(examples.count >= 10, "\(examples)")
        let fixture = try SimulatorFixture()
        let sandbox = try Sandbox()
        let rig = try SimulatorFixture()
        try sandbox.write(
            """
            integration.docs = https://docs.example.com/mcp
            preset.review.template = Review this diff:\\n\\n{{stdin}}\\n\\nFocus on {{input}}.
            alias.fast = acme/tiny-1b
            server.rig = \(rig.url)

            """, to: "config/llmster/config")
        _ = FileManager.default.createFile(
            atPath: sandbox.root + "/photo.png",
            contents: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]))
        var environment = sandbox.environment(server: fixture.url, extra: ["LLMSTER_BACKUP_PASSWORD": "correct horse"])
        environment["PATH"] = BuiltProduct.directory.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        for example in examples {
            #expect(
                example.hasPrefix("llmster") || example.contains("| llmster"), "an example runs llmster: \(example)")
            let result = try await run(example, environment: environment, directory: sandbox.root)
            #expect(result.status == 0, "\(document): `\(example)` exited \(result.status):\n\(result.output)")
        }
    }
}
