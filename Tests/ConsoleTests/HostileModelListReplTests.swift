import Foundation
import Simulator
import TestSupport
import Testing

/// A server whose model list carries terminal control sequences: every slash command that names a model prints
/// them inert (`␛]52;…` as text), so the clipboard, title and screen stay the user's.
@Suite(.spawnsProcesses) struct HostileModelListReplTests {
    /// The sequences of `HostileScenarios`' model list, as they would act on a terminal.
    static let hostileSequences = [
        "\u{1B}]52;c;cHduZWQ=", "\u{1B}]0;pwned", "\u{1B}[?1049h", "\u{1B}[5m", "\u{9B}", "\u{85}", "\u{202E}"
    ]

    @Test func slashCommandsNamingAModelPrintItsControlSequencesInert() async throws {
        var options = SimulatorOptions()
        options.hostileModels = true
        let repl = try ReplHarness(options, environment: ["PAGER": "cat"])
        let title = "Clip \u{1B}]52;c;cHduZWQ=\u{07} title \u{1B}[?1049h \u{9B}31m \u{202E}rtl"
        let made = try await repl.runBounded([
            "ask", "-m", HostileScenarios.modelKey, "--folder", "Folder\u{1B}[5m\u{85}", title + "\necho:hi"
        ])
        try #require(made.status == 0, "\(made)")
        let terminal = try await repl.start(width: 240)
        var shown: [String: String] = [:]
        for command in [
            "/model evil/", "/load evil/", "/models", "/ps", "/model evil/not-there", "/chats", "/folder",
            "/search Clip",
            "/open Clip", "/show", "/alt", "/stats", "/unload evil/", "/open no such chat"
        ] {
            let start = terminal.rawOutput.unicodeScalars.count
            let typed = terminal.mark
            terminal.send(command + "\r")
            // The prompt's info row and the prompt: `/search Clip` prints "‹Clip› " in its table, which `enter`
            // would take for the prompt, and the next command would then be typed while this one runs.
            try await terminal.waitFor("]\n› ", after: typed + command.count)
            shown[command] = String(String.UnicodeScalarView(terminal.rawOutput.unicodeScalars.dropFirst(start)))
        }
        for (command, output) in shown {
            for sequence in Self.hostileSequences {
                #expect(
                    !output.contains(sequence),
                    "\(command) printed \(sequence.debugDescription) raw:\n\(output.debugDescription)")
            }
        }
        #expect(
            shown["/model evil/"]?.contains("did you mean evil/␛]52;c;cHduZWQ=␇") == true,
            "\(shown["/model evil/"] ?? "")")
        #expect(
            shown["/models"]?.contains("evil/␛]52") == true, "the model is listed, inert: \(shown["/models"] ?? "")")
        #expect(
            shown["/chats"]?.contains("Clip ␛]52;c;cHduZWQ=␇") == true,
            "the title is listed, inert: \(shown["/chats"] ?? "")")
    }
}
