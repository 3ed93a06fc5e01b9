import Console
import Foundation
import TestSupport
import Testing

/// The bash, zsh and fish scripts `llmster completions` generates from the command table, and the copies in
/// share/completions; bash and fish are driven for real.
@Suite(.spawnsProcesses) struct ShellCompletionTests {
    /// share/completions in this checkout.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("share/completions").path
    static let files = ["bash": "llmster.bash", "zsh": "_llmster", "fish": "llmster.fish"]

    /// A simulator, a sandboxed library with two conversations in folders, and `llmster` on PATH.
    struct Setup {
        let fixture: SimulatorFixture
        let sandbox: Sandbox
        var environment: [String: String]

        init() async throws {
            fixture = try SimulatorFixture()
            sandbox = try Sandbox()
            environment = sandbox.environment(server: fixture.url)
            environment["PATH"] = BuiltProduct.directory.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
            for (folder, prompt) in [("Work/Clients", "echo:Explain SSE"), ("Home", "echo:Plan a trip")] {
                let result = try await ProcessRunner.run(
                    try BuiltProduct.path("llmster"), ["ask", "--folder", folder, prompt],
                    environment: environment)
                #expect(result.status == 0, "\(result)")
            }
            try sandbox.write("", to: "photo.png")
            try sandbox.write("", to: "sse.llmster")
        }
    }

    /// Runs the bash completion function on `words` (the last one being completed) in `directory`; returns COMPREPLY.
    ///
    /// The words are split at ":" as bash splits them (COMP_WORDBREAKS).
    func bashCompletions(_ words: [String], _ setup: Setup) async throws -> [String] {
        let split = words.flatMap { word in
            word.split(separator: ":", omittingEmptySubsequences: false).map(String.init).enumerated()
                .flatMap { $0.offset == 0 ? [$0.element] : [":", $0.element] }.filter { !$0.isEmpty }
        }
        let quoted = (split.last == ":" ? split + [""] : split).map { "'\($0)'" }.joined(separator: " ")
        let words = split.last == ":" ? split + [""] : split
        let script =
            "cd '\(setup.sandbox.root)'; source '\(Self.directory)/llmster.bash'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _llmster; printf '%s\\n' \"${COMPREPLY[@]}\""
        let result = try await ProcessRunner.run("/bin/bash", ["-c", script], environment: setup.environment)
        #expect(result.status == 0, "\(result)")
        return result.output.split(separator: "\n").map(String.init).sorted()
    }

    /// What fish offers for `line` (its `complete -C`), the candidates without their descriptions.
    func fishCompletions(_ line: String, _ setup: Setup) async throws -> [String] {
        let script = "cd '\(setup.sandbox.root)'; source '\(Self.directory)/llmster.fish'; complete -C '\(line)'"
        let result = try await ProcessRunner.run(
            "/usr/bin/fish", ["--no-config", "-c", script], environment: setup.environment)
        #expect(result.status == 0, "\(result)")
        return result.output.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }.sorted()
    }

    @Test func theCommittedScriptsAreTheGeneratedOnes() async throws {
        for (shell, file) in Self.files {
            let generated = try await ProcessRunner.run(
                try BuiltProduct.path("llmster"), ["completions", shell], environment: [:])
            #expect(generated.status == 0)
            let committed = try String(contentsOfFile: Self.directory + "/" + file, encoding: .utf8)
            #expect(
                generated.output == committed,
                "share/completions/\(file) is stale: run llmster completions \(shell) > share/completions/\(file)")
        }
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func everyCommandAndOptionAppears(shell: String) async throws {
        // The executable's script: it adds the commands of the faces Console does not link (rpc, voice).
        let generated = try await ProcessRunner.run(
            try BuiltProduct.path("llmster"), ["completions", shell], environment: [:])
        try #require(generated.status == 0, "\(generated)")
        let script = generated.output
        let commands = try await HelpPages.commands()
        #expect(commands.count >= 17)
        for (command, commandHelp) in commands {
            #expect(script.contains(command), "\(shell) offers \(command)")
            for option in commandHelp.matches(of: /--([a-z][a-z-]+)/).map({ String($0.output.1) }) {
                #expect(
                    script.contains(shell == "fish" ? "-l \(option)" : "--\(option)"),
                    "\(shell) offers \(command) --\(option)")
            }
        }
        #expect(
            !script.contains("__complete '") && !script.contains(" __complete:"), "the hidden command is not offered")
    }

    @Test func bashCompletesCommandsOptionsAndNamesFromTheLibraryAndServer() async throws {
        let setup = try await Setup()
        await #expect(try bashCompletions(["llmster", "mo"], setup) == ["models"])
        await #expect(try bashCompletions(["llmster", "com"], setup) == ["completions"])
        await #expect(try bashCompletions(["llmster", "models", "--vi"], setup) == ["--vision"])
        await #expect(
            try bashCompletions(["llmster", "ask", "--mark"], setup) == ["--markdown"],
            "global options after the command")
        await #expect(try bashCompletions(["llmster", "load", "acme/th"], setup) == ["acme/thinker-8b"])
        await #expect(try bashCompletions(["llmster", "ask", "-m", "acme/vi"], setup) == ["acme/vision-7b"])
        await #expect(try bashCompletions(["llmster", "-m", "acme/vi"], setup) == ["acme/vision-7b"], "the REPL's -m")
        await #expect(
            try bashCompletions(["llmster", "show", "echo:Exp"], setup) == ["Explain\\ SSE"],
            "a title with a space, quoted (bash has echo: already)")
        await #expect(try bashCompletions(["llmster", "ask", "--chat", "echo:P"], setup) == ["Plan\\ a\\ trip"])
        await #expect(try bashCompletions(["llmster", "chats", "--folder", "Wo"], setup) == ["Work", "Work/Clients"])
        await #expect(try bashCompletions(["llmster", "import", "sse"], setup) == ["sse.llmster"])
        await #expect(try bashCompletions(["llmster", "restore", "pho"], setup) == ["photo.png"])
        await #expect(try bashCompletions(["llmster", "ask", "--image", "ph"], setup) == ["photo.png"])
        await #expect(try bashCompletions(["llmster", "completions", "z"], setup) == ["zsh"])
        let load = try await ProcessRunner.run(
            try BuiltProduct.path("llmster"), ["load", "acme/tiny-1b"], environment: setup.environment)
        #expect(load.output.contains("acme/tiny-1b:2"), "\(load)")
        await #expect(
            try bashCompletions(["llmster", "unload", "acme/tiny-1"], setup) == ["acme/tiny-1b", "acme/tiny-1b:2"])
        await #expect(
            try bashCompletions(["llmster", "unload", "acme/tiny-1b:"], setup) == ["2"],
            "bash has the part before the colon")
    }

    @Test func fishCompletesCommandsOptionsAndNames() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/fish"), "make test-deps installs fish")
        let setup = try await Setup()
        await #expect(try fishCompletions("llmster mod", setup) == ["models"])
        await #expect(try fishCompletions("llmster models --vi", setup) == ["--vision"])
        await #expect(try fishCompletions("llmster ask -m acme/vi", setup) == ["acme/vision-7b"])
        await #expect(try fishCompletions("llmster show echo:Exp", setup) == ["echo:Explain SSE"])
        await #expect(try fishCompletions("llmster chats --folder Wo", setup) == ["Work", "Work/Clients"])
        await #expect(try fishCompletions("llmster import sse", setup) == ["sse.llmster"])
        await #expect(try fishCompletions("llmster ask --image ph", setup) == ["photo.png"])
    }

    @Test func zshCompletesOnATerminal() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh"), "make test-deps installs zsh")
        let setup = try await Setup()
        var environment = setup.environment
        environment["PS1"] = "%% "
        environment["TERM"] = "dumb"
        let zsh = try Pseudoterminal("/usr/bin/zsh", ["-f", "-i"], environment: environment)
        zsh.send(
            "cd '\(setup.sandbox.root)'; fpath=('\(Self.directory)' $fpath); autoload -U compinit; compinit -u -D; print ready\r"
        )
        _ = try await zsh.waitFor("\nready")
        for (typed, expected) in [
            ("llmster mo", "llmster models "), ("llmster models --vi", "--vision "),
            ("llmster ask --mark", "--markdown "), ("llmster completions z", "completions zsh "),
            ("llmster load acme/th", "acme/thinker-8b "), ("llmster show echo:Exp", "echo:Explain\\ SSE "),
            ("llmster chats --folder Work/C", "Work/Clients "), ("llmster import sse", "sse.llmster ")
        ] {
            let mark = zsh.mark
            zsh.send(typed + "\t")
            _ = try await zsh.waitFor(expected, after: mark)
            zsh.send("\u{15}")
        }
        zsh.send("exit\r")
        _ = try await zsh.waitForExit()
    }
}
