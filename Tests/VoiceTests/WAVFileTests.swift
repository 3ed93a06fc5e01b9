import Testing
import Voice

/// A WAV file's bytes: 16-bit PCM with the given rate and channels.
func wav(_ samples: [Int16], rate: Int = 16_000, channels: Int = 1, extraChunk: Bool = false) -> [UInt8] {
    func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
    func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }
    let data = samples.flatMap { le16(Int(UInt16(bitPattern: $0))) }
    var format = le16(1) + le16(channels) + le32(rate) + le32(rate * channels * 2) + le16(channels * 2) + le16(16)
    format = Array("fmt ".utf8) + le32(format.count) + format
    let list = extraChunk ? Array("LIST".utf8) + le32(3) + [1, 2, 3, 0] : []
    let body = Array("WAVE".utf8) + format + list + Array("data".utf8) + le32(data.count) + data
    return Array("RIFF".utf8) + le32(body.count) + body
}

@Suite struct WAVFileTests {
    @Test func readsMonoSamplesAndSkipsUnknownChunks() throws {
        let samples: [Int16] = [0, 1, -1, 32767, -32768, 1234]
        #expect(try WAVFile.samples(wav(samples, extraChunk: true), path: "a.wav") == samples)
    }

    @Test func averagesStereoToMono() throws {
        #expect(try WAVFile.samples(wav([100, 300, -50, -150], channels: 2), path: "s.wav") == [200, -100])
    }

    @Test func refusesOtherSampleRatesSayingHowToConvert() {
        #expect {
            try WAVFile.samples(wav([1, 2, 3], rate: 22_050), path: "speech.wav")
        } throws: { error in
            let text = String(describing: error)
            return text.contains("22050 Hz") && text.contains("sox 'speech.wav' -r 16000 -c 1")
        }
    }

    @Test(arguments: [[UInt8](), Array("not a wav file at all".utf8), Array(wav([1, 2, 3]).prefix(30))])
    func refusesWhatIsNotAWAVFile(bytes: [UInt8]) {
        #expect(throws: VoiceError.self) { try WAVFile.samples(bytes, path: "x.wav") }
    }

    @Test func aTruncatedDataChunkKeepsTheSamplesThatArrived() throws {
        var bytes = wav([10, 20, 30, 40])
        bytes.removeLast(3)
        #expect(try WAVFile.samples(bytes, path: "t.wav") == [10, 20])
    }
}
