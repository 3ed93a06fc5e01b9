import Foundation
import TestSupport
import Testing

/// `voice_language` and `speak_command` in the configuration file reach `llmster voice`.
@Suite(.spawnsProcesses) struct VoiceConfigurationTests {
    @Test func aLanguageWithoutALocalModelKeepsVoiceOff() async throws {
        let fixture = try SimulatorFixture()
        let cli = try VoiceCLI(server: fixture.url)
        try cli.sandbox.write("voice_language = fr-fr\n", to: "config/llmster/config", permissions: 0o644)
        let question = try await cli.spokenQuestion("hello")
        let result = try await cli.run(["voice", "--audio-input", question])
        #expect(result.status == 1, "\(result)")
        #expect(result.errors.contains("voice is off"))
        #expect(result.errors.contains("fr-fr"))
        #expect(fixture.requests(to: "/api/v1/chat").isEmpty)
    }

    @Test func speakCommandFromTheConfigurationReadsTheAnswer() async throws {
        let fixture = try SimulatorFixture()
        let cli = try VoiceCLI(server: fixture.url)
        let spokenFile = cli.sandbox.root + "/spoken.txt"
        try cli.sandbox.write(
            "speak_command = cat >> '\(spokenFile)'\nvoice_silence_seconds = 1.2\n",
            to: "config/llmster/config", permissions: 0o644)
        let question = try await cli.spokenQuestion("what is the weather")
        let result = try await cli.run(["voice", "--audio-input", question, "--speak"])
        #expect(result.status == 0, "\(result)")
        #expect(try String(contentsOfFile: spokenFile, encoding: .utf8).contains("scripted reply"))
    }
}
