import Foundation
import Testing
import TestSupport

@Suite struct ShellCompletionTests {
    /// share/completions in this checkout.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("share/completions").path

    /// Runs the bash completion function on `words` (the last one being completed); returns COMPREPLY.
    func bashCompletions(_ words: [String], environment: [String: String]) throws -> [String] {
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let script = "source '\(Self.directory)/llmster.bash'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _llmster; printf '%s\\n' \"${COMPREPLY[@]}\""
        let result = try ProcessRunner.run("/bin/bash", ["-c", script], environment: environment)
        #expect(result.status == 0, "\(result)")
        return result.output.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesCommandsOptionsAndModelKeys() throws {
        let fixture = try SimulatorFixture()
        let sandbox = try Sandbox()
        var environment = sandbox.environment(server: fixture.url)
        environment["PATH"] = BuiltProduct.directory.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        #expect(try bashCompletions(["llmster", "mo"], environment: environment) == ["models"])
        #expect(try bashCompletions(["llmster", "models", "--vi"], environment: environment) == ["--vision"])
        #expect(try bashCompletions(["llmster", "load", "acme/th"], environment: environment) == ["acme/thinker-8b"])
        #expect(try bashCompletions(["llmster", "ask", "-m", "acme/vi"], environment: environment) == ["acme/vision-7b"])
    }

    @Test func zshAndFishFilesDeclareTheCommands() throws {
        let zsh = try String(contentsOfFile: Self.directory + "/_llmster", encoding: .utf8)
        let fish = try String(contentsOfFile: Self.directory + "/llmster.fish", encoding: .utf8)
        for command in ["models", "ps", "load", "unload", "doctor", "ask", "chats", "show", "search"] {
            #expect(zsh.contains("'\(command):"), "zsh lists \(command)")
            #expect(fish.contains("-a \(command) "), "fish lists \(command)")
        }
        #expect(zsh.hasPrefix("#compdef llmster"))
    }
}
