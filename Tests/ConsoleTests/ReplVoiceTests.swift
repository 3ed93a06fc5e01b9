import Foundation
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
}
