/// How a voice conversation listens and answers.
public struct VoiceOptions: Sendable, Equatable {
    /// A 16 kHz mono WAV file to use instead of the capture device (for scripted use and tests).
    public var audioInput: String?
    /// Whether answers are read aloud.
    public var speak: Bool
    /// Seconds of silence that end a spoken turn.
    public var silenceSeconds: Double
    /// The recognition language, as pocketsphinx's model directories name it.
    public var language: String
    /// The environment: `PATH` for the helper programs, `LLMSTER_POCKETSPHINX_MODEL`, `LLMSTER_SPEAK_COMMAND`.
    public var environment: [String: String]

    /// Options with the defaults: capture device, silent answers, 1.6 s of silence, American English.
    public init(
        audioInput: String? = nil, speak: Bool = false, silenceSeconds: Double = 1.6, language: String = "en-us",
        environment: [String: String]
    ) {
        self.audioInput = audioInput
        self.speak = speak
        self.silenceSeconds = silenceSeconds
        self.language = language
        self.environment = environment
    }
}
