import Foundation
import Library
import Simulator
import TestSupport
import Testing

/// Runs the built `llmster` in a sandbox against a simulator.
struct VoiceCLI {
    let sandbox: Sandbox
    let server: String

    init(server: String) throws {
        sandbox = try Sandbox()
        self.server = server
    }

    func start(_ arguments: [String], environment: [String: String]) throws -> RunningProcess {
        try ProcessRunner.start(
            try BuiltProduct.path("llmster"), arguments,
            environment: sandbox.environment(server: server, extra: environment))
    }

    func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> ProcessResult {
        try await ProcessRunner.run(
            try BuiltProduct.path("llmster"), arguments,
            environment: sandbox.environment(server: server, extra: environment))
    }

    /// Runs a helper program (espeak-ng, sox) and fails the test when it is missing or fails.
    func tool(_ arguments: [String]) async throws {
        let result = try await ProcessRunner.run(
            "/usr/bin/env", arguments, environment: sandbox.environment(server: server))
        try #require(result.status == 0, "\(arguments[0]) failed (make test-deps installs it): \(result)")
    }

    /// A spoken question generated with espeak-ng, then `silence` seconds of silence, as 16 kHz mono 16-bit WAV.
    func spokenQuestion(_ text: String, silence: Double = 2.5) async throws -> String {
        let raw = sandbox.root + "/question-22k.wav"
        let converted = sandbox.root + "/question.wav"
        try await tool(["espeak-ng", "-v", "en-us", "-s", "150", "-w", raw, text])
        try await tool(["sox", raw, "-r", "16000", "-c", "1", "-b", "16", converted, "pad", "0", String(silence)])
        return converted
    }
}

@Suite(.spawnsProcesses) struct VoiceCommandTests {
    @Test func spokenQuestionReachesTheServerAndIsSavedLikeTypedInput() async throws {
        let fixture = try SimulatorFixture()
        let cli = try VoiceCLI(server: fixture.url)
        let question = try await cli.spokenQuestion("what is the weather")
        let result = try await cli.run(["voice", "--audio-input", question])
        #expect(result.status == 0, "\(result)")
        let request = try #require(fixture.requests(to: "/api/v1/chat").last, "\(result)")
        let input = try #require(request.field("input"))
        #expect(
            input.hasPrefix("what is"),
            "pocketsphinx hears the start of \"what is the weather\" reliably; got \"\(input)\"")
        #expect(result.output.contains("> " + input), "the recognised words are shown")
        #expect(result.output.contains("scripted reply"), "the reply is shown")
        #expect(fixture.requests(to: "/api/v1/chat").count == 1, "the trailing silence is not a second turn")

        let show = try await cli.run(["show", input])
        #expect(show.output.contains(input), "the spoken turn is saved in the library")
    }

    /// The first spoken turn goes as `ask`'s would: not sent, it leaves the conversation it continued as it was
    /// (not on the `-m` typo) and none made for it.
    @Test func aSpokenTurnNotSentLeavesTheLibraryAsItWas() async throws {
        let fixture = try SimulatorFixture()
        let cli = try VoiceCLI(server: fixture.url)
        let question = try await cli.spokenQuestion("what is the weather")
        #expect(try await cli.run(["ask", "echo:first"]).status == 0)
        for arguments in [["-c"], []] {
            let result = try await cli.run(
                ["voice"] + arguments + ["-m", "acme/no-such-model", "--audio-input", question])
            #expect(result.status != 0 && result.errors.contains("not downloaded"), "\(result)")
            let chats = try await cli.run(["chats"])
            #expect(chats.output.contains("acme/tiny-1b") && !chats.output.contains("no-such-model"), "\(chats)")
            #expect(chats.output.split(separator: "\n").count == 2, "the header and the one conversation: \(chats)")
        }
    }

    @Test func spokenAnswersGoThroughTheSpeechFilterAndTheTranscriptKeepsTheOriginal() async throws {
        let fixture = try SimulatorFixture()
        let cli = try VoiceCLI(server: fixture.url)
        let question = try await cli.spokenQuestion("what is the weather")
        let spokenFile = cli.sandbox.root + "/spoken.txt"
        let result = try await cli.run(
            ["voice", "--audio-input", question, "--speak"],
            environment: ["LLMSTER_SPEAK_COMMAND": "cat >> '\(spokenFile)'"])
        #expect(result.status == 0, "\(result)")
        let spoken = try String(contentsOfFile: spokenFile, encoding: .utf8)
        #expect(spoken.contains("scripted reply from the LM Studio simulator"))
        #expect(spoken.contains("A code block in Swift."))
        #expect(!spoken.contains("**") && !spoken.contains("```") && !spoken.contains("print("))
        #expect(result.output.contains("```swift"), "the displayed reply keeps its code")
    }

    @Test func liveCaptureSendsATurnAndStopsOnInterrupt() async throws {
        let fixture = try SimulatorFixture()
        let cli = try VoiceCLI(server: fixture.url)
        let question = try await cli.spokenQuestion("what is the weather")
        let raw = cli.sandbox.root + "/question.raw"
        try await cli.tool(["sox", question, "-t", "raw", raw])
        // A stand-in for arecord: the question the first time it runs, then a microphone nobody speaks into.
        let bin = cli.sandbox.root + "/bin"
        try cli.sandbox.write(
            """
            #!/bin/sh
            if [ -e "\(bin)/spoken" ]; then exec cat; fi
            touch "\(bin)/spoken"
            exec cat "\(raw)"
            """, to: "bin/arecord", permissions: 0o755)
        let path = bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let running = try cli.start(["voice"], environment: ["PATH": path])
        let deadline = ContinuousClock.now + .seconds(60)
        while fixture.requests(to: "/api/v1/chat").isEmpty, running.process.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        running.signal(SIGINT)
        let result = await running.wait(killingAfter: 30)
        #expect(!(result.killedBySignal && result.status == SIGKILL), "Ctrl-C stops listening within 30 s")
        #expect(result.status == 130, "\(result)")
        #expect(result.errors.contains("the default microphone (arecord)"))
        let input = try #require(fixture.requests(to: "/api/v1/chat").first?.field("input"), "\(result)")
        #expect(input.hasPrefix("what is"), "got \"\(input)\"")
    }

    /// A signal stops a spoken turn's reply as it stops `ask`'s: the text received is kept, saved with the reason
    /// that names the signal (not the "Cancelled" of Ctrl-C).
    /// On a terminal, as with `ask`: keys typed while the spoken turn's reply is drawn are not echoed into it, nor is
    /// Ctrl-C's `^C`, and the terminal is cooked again when llmster exits.
    @Test func keysTypedDuringASpokenTurnsReplyAreNotEchoedIntoIt() async throws {
        let fixture = try SimulatorFixture(SimulatorOptions(defaultFaults: "stall=30"))
        let cli = try VoiceCLI(server: fixture.url)
        let question = try await cli.spokenQuestion("what is the weather")
        let terminal = try Pseudoterminal(
            try BuiltProduct.path("llmster"), ["voice", "--audio-input", question],
            environment: cli.sandbox.environment(server: cli.server), width: 100, height: 40)
        let partial = try await cli.sandbox.waitForReply(seconds: 60) { !$0.text.isEmpty }
        try #require(partial != nil, "a partial reply was saved before the stall")
        #expect(try await terminal.typeLineThenInterrupt("typed meanwhile") == 130)
        let output = terminal.text
        #expect(!output.contains("typed meanwhile"), "\(output)")
        #expect(!output.contains("^C"), "\(output)")
        #expect(terminal.isCooked)
    }

    @Test func sigtermDuringASpokenTurnsReplySavesWhyItStopped() async throws {
        let fixture = try SimulatorFixture(SimulatorOptions(defaultFaults: "stall=30"))
        let cli = try VoiceCLI(server: fixture.url)
        let question = try await cli.spokenQuestion("what is the weather")
        let running = try cli.start(["voice", "--audio-input", question], environment: [:])
        let partial = try await cli.sandbox.waitForReply(seconds: 60) { !$0.text.isEmpty }
        try #require(partial != nil, "a partial reply was saved before the stall")
        running.signal(SIGTERM)
        let result = await running.wait(killingAfter: 30)
        #expect(result.status == 143, "\(result)")
        let saved = try #require(try await cli.sandbox.waitForReply(seconds: 10) { $0.status == .incomplete })
        #expect(saved.error?.contains("Stopped by SIGTERM") == true, "\(String(describing: saved.error))")
        #expect(saved.text == partial?.text, "the text received before the signal is kept")
    }

    @Test func aRecordingWithoutSpeechSendsNothingAndSaysSo() async throws {
        let fixture = try SimulatorFixture()
        let cli = try VoiceCLI(server: fixture.url)
        let silent = cli.sandbox.root + "/silent.wav"
        try await cli.tool(["sox", "-n", "-r", "16000", "-c", "1", "-b", "16", silent, "trim", "0", "3"])
        let result = try await cli.run(["voice", "--audio-input", silent])
        #expect(result.status == 1, "\(result)")
        #expect(result.errors.contains("no words were recognised"))
        #expect(fixture.requests(to: "/api/v1/chat").isEmpty)
    }

    @Test func voiceIsRefusedWhenTheRecognitionModelIsMissing() async throws {
        let fixture = try SimulatorFixture()
        let cli = try VoiceCLI(server: fixture.url)
        let question = try await cli.spokenQuestion("hello")
        let empty = cli.sandbox.root + "/no-model"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let result = try await cli.run(
            ["voice", "--audio-input", question], environment: ["LLMSTER_POCKETSPHINX_MODEL": empty])
        #expect(result.status == 1, "\(result)")
        #expect(result.errors.contains("voice is off"))
        #expect(result.errors.contains("apt-get install pocketsphinx-en-us"))
        #expect(
            fixture.requests(to: "/api/v1/chat").isEmpty, "nothing is sent, and nothing goes to a network recogniser")
    }

    @Test func voiceIsRefusedWithoutAnAudioSource() async throws {
        let fixture = try SimulatorFixture()
        let cli = try VoiceCLI(server: fixture.url)
        let emptyPath = cli.sandbox.root + "/bin"
        try FileManager.default.createDirectory(atPath: emptyPath, withIntermediateDirectories: true)
        let result = try await cli.run(["voice"], environment: ["PATH": emptyPath])
        #expect(result.status == 1, "\(result)")
        #expect(result.errors.contains("install alsa-utils"))
    }

    @Test func recordingsAtOtherRatesAreRefusedWithTheConversion() async throws {
        let fixture = try SimulatorFixture()
        let cli = try VoiceCLI(server: fixture.url)
        let raw = cli.sandbox.root + "/raw.wav"
        try await cli.tool(["espeak-ng", "-w", raw, "hello"])
        let result = try await cli.run(["voice", "--audio-input", raw])
        #expect(result.status == 1, "\(result)")
        #expect(result.errors.contains("22050 Hz") && result.errors.contains("sox"))
    }

    @Test func silenceMustBeAPositiveNumber() async throws {
        let cli = try VoiceCLI(server: "http://127.0.0.1:9")
        let result = try await cli.run(["voice", "--silence", "soon"])
        #expect(result.status == 2, "\(result)")
        #expect(result.errors.contains("--silence"))
    }
}
