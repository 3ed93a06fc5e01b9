import Chat
import Console
import Foundation
import Library
import Voice

/// `llmster voice`: a spoken conversation, recognised on this machine.
enum VoiceCommand {
    static let command = Command(
        "voice", exclusive: [[.continue, .chat]],
        summary: "Talk to a model: each spoken turn is recognised locally and sent after a pause.",
        details: """
            Recognition runs on this machine (pocketsphinx); no audio leaves it. A chime marks that listening
            began; a turn is sent after SECONDS of silence (default 1.6), and shorter pauses do not cut it.
            The recognised words are shown and saved like typed input. With --speak, a local voice (espeak-ng,
            or the command in $LLMSTER_SPEAK_COMMAND, which reads the text on standard input) reads each answer,
            without ids, hashes, emoji, media links or code, and listening resumes when it has finished.
            With --audio-input the turns come from a 16 kHz mono 16-bit WAV file and the command ends with it;
            otherwise it listens until Ctrl-C. When the engine, its model or an audio source is missing, voice
            stays off and llmster says what to install.
            """,
        options: [
            .init(
                [.model], short: "m", value: "MODEL",
                help: "model key (default: the conversation's, default_model, or the loaded model)"),
            AskCommand.continueOption, AskCommand.chatOption,
            .init(
                [.audioInput], value: "FILE.wav",
                help: "read speech from a 16 kHz mono WAV file instead of the microphone"),
            .init([.speak], help: "read answers aloud with a local voice"),
            .init([.silence], value: "SECONDS", help: "seconds of silence that end a spoken turn (default 1.6)")
        ]
    ) { arguments, context in
        try await run(arguments, context)
    }

    static func run(_ arguments: ArgumentParser.Parsed, _ context: CommandContext) async throws -> Int32 {
        var options = VoiceOptions.configured(
            context, audioInput: arguments.value(.audioInput), speak: arguments.has(.speak))
        if let silence = arguments.value(.silence) {
            guard let seconds = Double(silence), seconds > 0, seconds <= 60 else {
                throw UsageError("--silence takes a number of seconds between 0 and 60, not '\(silence)'")
            }
            options.silenceSeconds = seconds
        }
        let voice: VoiceConversation
        do { voice = try await VoiceConversation.prepare(options: options) } catch let error as VoiceError {
            context.warn(error.description)
            return ExitCode.failure
        }
        let session = try context.session()
        let opened = try await AskCommand.open(for: arguments, session: session, preset: context.preset)
        let conversationId = opened.conversation.id

        let latch = SignalLatch()
        let echo = ReplyEcho()
        let work = Task {
            try await converse(
                voice, session: session, conversationId: conversationId, opened: opened,
                stopReason: { StopReason.signal(latch.signal) }, context: context)
        }
        let trap = SignalTrap { signal in
            latch.record(signal)
            work.cancel()
        }
        defer { trap.remove() }
        defer { echo.restore() }
        let outcome = await work.result
        // A signal wins over whatever it interrupted: Ctrl-C before the server answered cancels the request.
        if let signal = latch.signal { return SignalTrap.exitStatus(for: signal) }
        let replies: [SavedReply]
        do { replies = try outcome.get() } catch let error as VoiceError {
            context.warn(error.description)
            return ExitCode.failure
        }
        if replies.isEmpty, let path = options.audioInput {
            context.warn("no words were recognised in \(path); nothing was sent")
            return ExitCode.failure
        }
        if let failed = replies.last(where: { $0.status != .complete }) {
            if let message = failed.errorMessage { context.warn(message) }
            return ExitCode.incompleteReply
        }
        return ExitCode.success
    }

    /// The REPL's `/voice`: prepares listening on `context` (throwing why voice cannot run) and returns the
    /// conversation to run, which ends with its last reply.
    static func startInRepl(_ context: CommandContext, speak: Bool) async throws -> (
        @Sendable (ChatSession, String, _ stopReason: @escaping @Sendable () -> String?) async throws -> SavedReply
    ) {
        let voice = try await VoiceConversation.prepare(options: .configured(context, audioInput: nil, speak: speak))
        return { session, conversationId, stopReason in
            let replies = try await converse(
                voice, session: session, conversationId: conversationId, stopReason: stopReason, context: context)
            guard let last = replies.last else { throw VoiceError.recognizer("voice stopped before a turn was heard") }
            return last
        }
    }

    /// Runs a prepared voice conversation with llmster's terminal display; the REPL's `/voice` calls this too.
    ///
    /// Recognised turns are printed on standard output as `> words`, like typed input; listening and
    /// speaking notes go to standard error.
    static func converse(
        _ voice: VoiceConversation, session: ChatSession, conversationId: String, opened: OpenedConversation? = nil,
        stopReason: @escaping @Sendable () -> String?, context: CommandContext
    ) async throws -> [SavedReply] {
        try await voice.run(
            session: session, conversationId: conversationId, opened: opened, stopReason: stopReason,
            display: {
                let display = ReplyDisplay.forCommandLine(context: context)
                return { await display.show($0) }
            },
            events: { event in
                switch event {
                case .ready(let engine, let audio):
                    context.errors.line("llmster: voice on: \(engine), listening to \(audio).")
                case .listening(let seconds):
                    context.errors.line("llmster: listening… (a pause of \(seconds.formatted()) s sends)")
                case .heard(let text): context.output.line("> \(text)")
                case .notUnderstood: context.errors.line("llmster: no words recognised; still listening.")
                case .speaking: context.errors.line("llmster: speaking…")
                case .speechFailed(let reason): context.warn("reading the answer aloud failed: \(reason)")
                }
            })
    }
}
