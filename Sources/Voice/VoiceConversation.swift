import Chat
import Foundation
import Synchronization
import SystemSupport

/// A spoken conversation: listen for a turn, send it like typed input, show the reply, optionally read it aloud, repeat.
///
/// Everything runs on this machine; when the recogniser, its model or an audio source is missing, `prepare`
/// refuses with what to install. Listening resumes only after a spoken answer has finished.
public final class VoiceConversation: Sendable {
    private let options: VoiceOptions
    private let listener: Mutex<Listener>
    private let interruption: Interruption
    private let synthesizer: SpeechSynthesizer?
    private let capturesLive: Bool
    /// The engine and audio source, for the `ready` event.
    private let setting: (engine: String, audio: String)

    /// Checks that voice can run, then loads the recogniser (about a second) on its own thread.
    public static func prepare(options: VoiceOptions) async throws -> VoiceConversation {
        try await BlockingThread.run("llmster-voice", stackSize: voiceStack) { () throws(any Error) in
            try VoiceConversation(options: options)
        }
    }

    private init(options: VoiceOptions) throws(VoiceError) {
        self.options = options
        let model = PocketSphinxModel(language: options.language, environment: options.environment)
        var missing: [String] = []
        if !PocketSphinxRecognizer.engineInstalled {
            missing.append(
                "the pocketsphinx library is not installed; install it with `sudo apt-get install libpocketsphinx3`")
        }
        if !model.missingFiles.isEmpty {
            missing.append(
                "the pocketsphinx model for \(options.language) is not installed (missing \(model.missingFiles.joined(separator: ", ")));"
                    + " install it with `sudo apt-get install pocketsphinx-\(options.language)`, or set LLMSTER_POCKETSPHINX_MODEL to its directory"
            )
        }
        let capture = options.audioInput == nil ? Self.captureCommand(path: options.environment["PATH"]) : nil
        if options.audioInput == nil, capture == nil {
            missing.append(
                "no audio capture program was found; install alsa-utils (arecord), sox or pulseaudio-utils (parec),"
                    + " or give a recording with --audio-input FILE.wav")
        }
        synthesizer = options.speak ? SpeechSynthesizer(environment: options.environment) : nil
        if options.speak, synthesizer == nil {
            missing.append(
                "no local voice reads answers aloud; install espeak-ng (`sudo apt-get install espeak-ng`) or set LLMSTER_SPEAK_COMMAND"
            )
        }
        guard missing.isEmpty else { throw .unavailable(missing) }

        let interruption = Interruption()
        let source: any AudioSource
        if let path = options.audioInput {
            source = try WAVFileSource(path: path)
            setting = ("pocketsphinx (\(options.language))", path)
        } else {
            source = CaptureSource(command: capture!, interruption: interruption)
            setting = ("pocketsphinx (\(options.language))", "the default microphone (\(capture![0]))")
        }
        let recognizer = try PocketSphinxRecognizer(model: model)
        self.interruption = interruption
        capturesLive = options.audioInput == nil
        listener = Mutex(Listener(source: source, recognizer: recognizer, silenceSeconds: options.silenceSeconds))
    }

    /// Converses on `conversationId` until the audio ends or the task is cancelled; returns the saved replies.
    ///
    /// `display` makes the update handler for one reply; `events` hears what voice is doing. `opened`, the
    /// conversation as the command line opened it, goes with the first turn sent: if that turn is not sent, a
    /// conversation made for it goes and the overrides it came with are put back (`ChatSession.submit`).
    /// `stopReason` says why a reply the task's cancellation stopped was stopped (`StopReason.signal`), as `ask`'s.
    public func run(
        session: ChatSession, conversationId: String, opened: OpenedConversation? = nil,
        stopReason: @escaping @Sendable () -> String?,
        display: @escaping @Sendable () -> ReplyObserver,
        events: @escaping @Sendable (VoiceEvent) -> Void
    ) async throws -> [SavedReply] {
        events(.ready(engine: setting.engine, audio: setting.audio))
        var replies: [SavedReply] = []
        var opening = opened
        while !Task.isCancelled {
            events(.listening(silenceSeconds: options.silenceSeconds))
            let outcome = try await blocking { [self] in
                if capturesLive { Chime.play(environment: options.environment) }
                return try listener.withLock { listener throws(VoiceError) in try listener.listen() }
            }
            guard case .heard(let text) = outcome, !Task.isCancelled else { break }
            guard !text.isEmpty else {
                events(.notUnderstood)
                continue
            }
            events(.heard(text))
            var submission = TurnSubmission(text: text)
            submission.changedPromptStartsFresh = true
            // Nobody answers a question here: a turn that only nears the context's end goes; one that would overflow
            // it ends the conversation with the figures.
            submission.sendsNearlyFull = true
            let turn = await session.submit(
                submission, in: conversationId, opened: opening, stopReason: stopReason, display: display())
            opening = nil
            let reply = try turn.savedReply()
            replies.append(reply)
            guard !Task.isCancelled else { break }
            if let synthesizer, !reply.state.answer.isEmpty {
                let spoken = SpeechFilter.speakableText(reply.state.answer)
                events(.speaking)
                let failure = try await blocking { [interruption] in
                    synthesizer.speak(spoken, interruption: interruption)
                }
                if let failure { events(.speechFailed(failure)) }
            }
        }
        return replies
    }

    /// The stack of a thread running recognition (pocketsphinx's search takes more than a secondary thread's default).
    static let voiceStack = 1 << 20

    /// Runs blocking work on a thread of its own; cancelling the task interrupts it.
    private func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withTaskCancellationHandler {
            try await BlockingThread.run("llmster-voice", stackSize: Self.voiceStack) { () throws(any Error) in
                try body()
            }
        } onCancel: { [interruption] in
            interruption.interrupt()
        }
    }

    /// The first recorder found: arecord (ALSA), sox, or parec (PulseAudio), writing 16 kHz mono 16-bit samples.
    static func captureCommand(path: String?) -> [String]? {
        switch ChildProcess.firstAvailable(["arecord", "sox", "parec"], path: path) {
        case "arecord": ["arecord", "-q", "-f", "S16_LE", "-r", "16000", "-c", "1", "-t", "raw"]
        case "sox":
            ["sox", "-q", "-d", "-t", "raw", "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", "-L", "-"]
        case "parec": ["parec", "--format=s16le", "--rate=16000", "--channels=1", "--raw"]
        default: nil
        }
    }
}
