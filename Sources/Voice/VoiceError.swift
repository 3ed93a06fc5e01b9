import Chat

/// Why voice cannot start or had to stop, said so the user knows what to do.
public enum VoiceError: CategorizedError, Equatable, CustomStringConvertible {
    /// Something voice needs is missing; each entry says what and how to install it.
    case unavailable([String])
    /// The audio file could not be read.
    case unreadableAudio(path: String, reason: String)
    /// The audio file is not in a format voice accepts.
    case unsupportedAudio(path: String, reason: String)
    /// The recognition engine failed.
    case recognizer(String)
    /// The capture program failed or stopped early.
    case capture(command: String, message: String)

    public var description: String {
        switch self {
        case .unavailable(let missing):
            return "voice is off: " + missing.joined(separator: "; ")
        case .unreadableAudio(let path, let reason):
            return "cannot read the audio file \(path): \(reason)"
        case .unsupportedAudio(let path, let reason):
            return "\(path): \(reason); convert it with: sox '\(path)' -r 16000 -c 1 -b 16 converted.wav"
        case .recognizer(let message):
            return "speech recognition failed: \(message)"
        case .capture(let command, let message):
            return "audio capture (\(command)) failed" + (message.isEmpty ? "" : ": \(message)")
                + "; check the microphone, or use --audio-input FILE.wav"
        }
    }
}

extension VoiceError {
    public var category: ErrorCategory {
        switch self {
        case .unavailable, .unsupportedAudio, .capture: .invalid
        case .unreadableAudio: .storage
        case .recognizer: .internal
        }
    }
}
