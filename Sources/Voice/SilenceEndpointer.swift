import Foundation

/// Finds where a spoken turn begins and ends by the energy of the audio itself.
///
/// Audio is judged in 20 ms frames against a noise floor that follows the background: down at once,
/// up slowly. A turn begins after three loud frames in a row and ends after `silenceSeconds` without
/// speech; shorter pauses, and clicks shorter than two frames, do not end it.
public struct SilenceEndpointer: Sendable {
    /// What one frame means for the turn.
    public enum Decision: Sendable, Equatable {
        /// No turn yet.
        case waiting
        /// A turn began; it started `onsetFrames` frames ago, counting this one.
        case turnBegan
        /// The turn goes on (speech, or a pause still shorter than the silence limit).
        case turnContinues
        /// The turn ended with this frame.
        case turnEnded
    }

    /// Samples per frame: 20 ms at 16 kHz.
    public static let frameSamples = 320
    /// Loud frames in a row that begin a turn.
    public static let onsetFrames = 3
    /// How far above the noise floor speech must be, in dB.
    static let marginDecibels = 10.0
    /// The quietest level counted as speech, in dBFS, so digital silence and hiss never start a turn.
    static let minimumSpeechDecibels = -55.0

    private let silenceFrames: Int
    private var noiseFloor: Double?
    private var loudRun = 0
    private var inTurn = false
    private var framesSinceSpeech = 0

    /// An endpointer that ends a turn after `silenceSeconds` of silence.
    public init(silenceSeconds: Double = 1.6) {
        silenceFrames = max(1, Int((silenceSeconds * 1000 / 20).rounded()))
    }

    /// Judges one frame of `frameSamples` samples.
    public mutating func decide(frame: ArraySlice<Int16>) -> Decision {
        let level = Self.level(of: frame)
        let floor = noiseFloor ?? min(level, Self.minimumSpeechDecibels + 5)
        let loud = level > max(floor + Self.marginDecibels, Self.minimumSpeechDecibels)
        if level < floor {
            noiseFloor = floor + (level - floor) * 0.3
        } else {
            noiseFloor = floor + (level - floor) * (loud ? 0.002 : 0.02)
        }
        loudRun = loud ? loudRun + 1 : 0
        guard inTurn else {
            if loudRun >= Self.onsetFrames {
                inTurn = true
                framesSinceSpeech = 0
                return .turnBegan
            }
            return .waiting
        }
        framesSinceSpeech = loudRun >= 2 ? 0 : framesSinceSpeech + 1
        if framesSinceSpeech >= silenceFrames {
            inTurn = false
            loudRun = 0
            return .turnEnded
        }
        return .turnContinues
    }

    /// A frame's level in dBFS (-100 for digital silence).
    static func level(of frame: ArraySlice<Int16>) -> Double {
        guard !frame.isEmpty else { return -100 }
        let energy = frame.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(frame.count)
        return energy <= 0 ? -100 : max(-100, 10 * log10(energy / (32768.0 * 32768.0)))
    }
}
