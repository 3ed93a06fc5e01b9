import Foundation
import Library
import Simulator
import TestSupport
import Testing

/// The REPL's `/voice` reaches the Voice module, which the `llmster` executable wires into Console (Console does not
/// link it): voice's own refusal is shown, not "voice is not part of this build", and the chat goes on.
@Suite(.spawnsProcesses) struct ReplVoiceTests {
    @Test func voiceInTheReplSaysWhatToInstallAndTheChatGoesOn() async throws {
        let sandbox = try Sandbox()
        let noModel = sandbox.root + "/no-model"
        try FileManager.default.createDirectory(atPath: noModel, withIntermediateDirectories: true)
        let repl = try ReplHarness(environment: ["LLMSTER_POCKETSPHINX_MODEL": noModel])
        let terminal = try await repl.start()
        let refused = try await terminal.enter("/voice")
        #expect(
            refused.contains("/voice: voice is off") && refused.contains("apt-get install pocketsphinx-en-us"),
            "\(refused)")
        #expect(!refused.contains("not part of this build"))
        let answered = try await terminal.enter("echo:still typing")
        #expect(answered.contains("still typing"))
    }

    /// A reply to a spoken turn that the terminal's closing stops is saved with why it stopped, as a typed turn's is
    /// (not with Ctrl-C's "Cancelled").
    @Test func aSpokenTurnsReplyStoppedByAHangUpSavesWhy() async throws {
        var repl = try ReplHarness(SimulatorOptions(defaultFaults: "stall=30"))
        let root = repl.sandbox.root
        // The question as arecord gives it (16 kHz mono 16-bit raw, then silence), from a stand-in on the PATH.
        for arguments in [
            ["espeak-ng", "-v", "en-us", "-s", "150", "-w", root + "/question.wav", "what is the weather"],
            [
                "sox", root + "/question.wav", "-r", "16000", "-c", "1", "-b", "16", "-t", "raw",
                root + "/question.raw",
                "pad", "0", "2.5"
            ]
        ] {
            let made = try await ProcessRunner.run("/usr/bin/env", arguments, environment: repl.environment)
            try #require(made.status == 0, "\(arguments[0]) failed (make test-deps installs it): \(made)")
        }
        try repl.sandbox.write("#!/bin/sh\nexec cat \"\(root)/question.raw\"\n", to: "bin/arecord", permissions: 0o755)
        repl.extra["PATH"] = root + "/bin:" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let terminal = try await repl.start()
        terminal.send("/voice\r")
        let partial = try await repl.sandbox.waitForReply(seconds: 60) { !$0.text.isEmpty }
        try #require(partial != nil, "a partial reply to the spoken turn was saved before the stall")
        terminal.hangUp()
        #expect(try await terminal.waitForExit() == 129, "it exits as SIGHUP ends it")
        let saved = try #require(try await repl.sandbox.waitForReply(seconds: 10) { $0.status == .incomplete })
        #expect(saved.error?.contains("Stopped by SIGHUP") == true, "\(String(describing: saved.error))")
        #expect(saved.text == partial?.text, "the text received before the hang-up is kept")
    }
}
