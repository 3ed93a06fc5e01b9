/// Listens for one spoken turn at a time: audio → endpointer → recogniser.
///
/// Runs on the voice thread; audio before the turn is kept briefly so the first syllable is not lost.
final class Listener {
    /// What one listening produced.
    enum Outcome: Sendable, Equatable {
        /// A turn ended; its recognised words (empty when nothing was understood).
        case heard(String)
        /// The audio ended, or listening was interrupted, before another turn began.
        case endOfAudio
    }

    private let source: any AudioSource
    private let recognizer: any SpeechRecognizer
    private var endpointer: SilenceEndpointer
    private var leftover: ArraySlice<Int16> = []
    /// Frames kept before a turn begins: 300 ms.
    private static let prerollFrames = 15

    init(source: any AudioSource, recognizer: any SpeechRecognizer, silenceSeconds: Double) {
        self.source = source
        self.recognizer = recognizer
        endpointer = SilenceEndpointer(silenceSeconds: silenceSeconds)
    }

    /// Blocks until a turn ends or the audio does.
    func listen() throws(VoiceError) -> Outcome {
        var preroll: [ArraySlice<Int16>] = []
        var inTurn = false
        defer { source.pause() }
        while true {
            guard let frame = try nextFrame() else {
                guard inTurn else { return .endOfAudio }
                return .heard(try recognizer.endUtterance())
            }
            switch endpointer.decide(frame: frame) {
            case .waiting:
                preroll.append(frame)
                if preroll.count > Self.prerollFrames { preroll.removeFirst() }
            case .turnBegan:
                inTurn = true
                try recognizer.beginUtterance()
                for earlier in preroll { try recognizer.process(earlier) }
                try recognizer.process(frame)
            case .turnContinues:
                try recognizer.process(frame)
            case .turnEnded:
                try recognizer.process(frame)
                return .heard(try recognizer.endUtterance())
            }
        }
    }

    /// The next whole frame, or nil at the end of the audio (a final partial frame is dropped).
    private func nextFrame() throws(VoiceError) -> ArraySlice<Int16>? {
        let size = SilenceEndpointer.frameSamples
        while leftover.count < size {
            let samples = try source.read(maximum: size * 5)
            if samples.isEmpty { return nil }
            leftover = leftover.isEmpty ? samples : ArraySlice(Array(leftover) + samples)
        }
        let frame = leftover.prefix(size)
        leftover = leftover.dropFirst(size)
        return ArraySlice(frame)
    }
}
