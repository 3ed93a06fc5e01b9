import Foundation
import Testing
import Voice

/// Synthetic 16 kHz audio: faint background noise with loud tone bursts.
struct SyntheticAudio {
    private(set) var samples: [Int16] = []
    private var seed: UInt32 = 12345

    /// Background noise around -66 dBFS for `seconds`.
    mutating func pause(_ seconds: Double) {
        for _ in 0..<Int(seconds * 16_000) {
            seed = seed &* 1_103_515_245 &+ 12_345
            samples.append(Int16(Int(seed >> 16) % 33 - 16))
        }
    }

    /// Steady noise of the given peak amplitude for `seconds`.
    mutating func steadyNoise(_ seconds: Double, amplitude: Int) {
        for index in 0..<Int(seconds * 16_000) {
            samples.append(Int16((index * 7919) % (2 * amplitude) - amplitude))
        }
    }

    /// A 440 Hz tone at about -12 dBFS for `seconds`.
    mutating func tone(_ seconds: Double) {
        let start = samples.count
        for index in 0..<Int(seconds * 16_000) {
            samples.append(Int16(8000 * sin(2 * Double.pi * 440 * Double(start + index) / 16_000)))
        }
    }
}

/// The sample offsets (frame ends) at which the endpointer reported each decision other than waiting/continuing.
func endpoints(_ samples: [Int16], silenceSeconds: Double = 1.6) -> (began: [Int], ended: [Int]) {
    var endpointer = SilenceEndpointer(silenceSeconds: silenceSeconds)
    var began: [Int] = []
    var ended: [Int] = []
    let size = SilenceEndpointer.frameSamples
    var offset = 0
    while offset + size <= samples.count {
        switch endpointer.decide(frame: samples[offset..<offset + size]) {
        case .turnBegan: began.append(offset + size)
        case .turnEnded: ended.append(offset + size)
        case .waiting, .turnContinues: break
        }
        offset += size
    }
    return (began, ended)
}

@Suite struct SilenceEndpointerTests {
    @Test func pausesOfOneSecondDoNotEndTheTurnButOnePointSixSecondsDoes() {
        var audio = SyntheticAudio()
        audio.pause(0.5)
        audio.tone(0.4)
        audio.pause(1.0)
        audio.tone(0.4)
        audio.pause(1.0)
        audio.tone(0.4)
        let lastSpeechEnds = audio.samples.count
        audio.pause(2.5)
        let result = endpoints(audio.samples)
        #expect(result.began.count == 1, "one turn, not one per burst")
        #expect(result.ended.count == 1)
        let silence = Double((result.ended.first ?? 0) - lastSpeechEnds) / 16_000
        #expect(silence >= 1.55 && silence <= 1.7, "the turn ends 1.6 s after the last speech, not \(silence) s")
    }

    @Test func aTurnFollowedByOnlyOneSecondOfAudioHasNotEnded() {
        var audio = SyntheticAudio()
        audio.pause(0.3)
        audio.tone(0.5)
        audio.pause(1.0)
        let result = endpoints(audio.samples)
        #expect(result.began.count == 1)
        #expect(result.ended.isEmpty)
    }

    @Test func theSilenceLimitIsConfigurable() {
        var audio = SyntheticAudio()
        audio.pause(0.3)
        audio.tone(0.5)
        audio.pause(1.0)
        audio.tone(0.5)
        audio.pause(1.0)
        let result = endpoints(audio.samples, silenceSeconds: 0.8)
        #expect(result.began.count == 2, "with 0.8 s, a 1.0 s pause separates two turns")
        #expect(result.ended.count == 2)
    }

    @Test func backgroundNoiseAloneNeverStartsATurn() {
        var audio = SyntheticAudio()
        audio.pause(5)
        let digitalSilence = [Int16](repeating: 0, count: 16_000)
        #expect(endpoints(audio.samples).began.isEmpty)
        #expect(endpoints(digitalSilence).began.isEmpty)
    }

    @Test func aLouderSteadyBackgroundBecomesTheNoiseFloor() {
        var audio = SyntheticAudio()
        audio.pause(0.5)
        audio.tone(0.4)
        // A fan starts: steady noise far above the quiet room, which must not keep the turn open forever.
        audio.steadyNoise(20, amplitude: 600)
        let result = endpoints(audio.samples)
        #expect(result.ended.count >= 1, "the turn still ends once the new background is learnt")
    }
}
