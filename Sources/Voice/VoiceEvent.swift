/// What a voice conversation reports to its face (command line or REPL) as it goes.
public enum VoiceEvent: Sendable, Equatable {
    /// Voice is on: the engine and where the audio comes from.
    case ready(engine: String, audio: String)
    /// Listening began (the chime has played); a turn is sent after `silenceSeconds` of silence.
    case listening(silenceSeconds: Double)
    /// A turn was recognised and is being sent.
    case heard(String)
    /// A turn ended but no words were recognised; listening goes on.
    case notUnderstood
    /// The answer is being read aloud.
    case speaking
    /// Reading the answer aloud failed.
    case speechFailed(String)
}
