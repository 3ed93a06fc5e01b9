/// Reads RIFF/WAVE files of 16-bit PCM into the 16 kHz mono samples recognition needs.
public enum WAVFile {
    /// The samples of a WAV file's bytes, channels averaged to mono; `path` only names the file in errors.
    ///
    /// Only 16 kHz, 16-bit integer PCM is accepted; other rates are refused with the `sox` command that converts them.
    public static func samples(_ bytes: [UInt8], path: String) throws(VoiceError) -> [Int16] {
        func unsupported(_ reason: String) -> VoiceError { .unsupportedAudio(path: path, reason: reason) }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8)
        else {
            throw unsupported("not a WAV file (no RIFF/WAVE header)")
        }
        var offset = 12
        var format: (channels: Int, rate: Int, bits: Int)?
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let declared = Int(littleEndian32(bytes, at: offset + 4))
            let start = offset + 8
            let size = min(declared, bytes.count - start)
            switch id {
            case "fmt ":
                guard size >= 16 else { throw unsupported("the format chunk is truncated") }
                var encoding = Int(littleEndian16(bytes, at: start))
                if encoding == 0xFFFE, size >= 26 { encoding = Int(littleEndian16(bytes, at: start + 24)) }
                guard encoding == 1 else {
                    throw unsupported("the audio is compressed or floating point, not 16-bit PCM")
                }
                format = (
                    Int(littleEndian16(bytes, at: start + 2)), Int(littleEndian32(bytes, at: start + 4)),
                    Int(littleEndian16(bytes, at: start + 14))
                )
            case "data":
                guard let format else { throw unsupported("the data chunk comes before the format chunk") }
                guard format.bits == 16 else { throw unsupported("the samples are \(format.bits)-bit, not 16-bit") }
                guard format.rate == 16_000 else {
                    throw unsupported("the sample rate is \(format.rate) Hz, not 16000 Hz")
                }
                guard format.channels >= 1 else { throw unsupported("the file declares no channels") }
                return mono(bytes[start..<start + size - size % (2 * format.channels)], channels: format.channels)
            default:
                break
            }
            offset = start + declared + declared % 2
        }
        throw unsupported("there is no audio data chunk")
    }

    private static func mono(_ data: ArraySlice<UInt8>, channels: Int) -> [Int16] {
        let base = data.startIndex
        let frames = data.count / (2 * channels)
        return (0..<frames).map { frame in
            var sum = 0
            for channel in 0..<channels {
                sum += Int(Int16(bitPattern: littleEndian16(data, at: base + 2 * (frame * channels + channel))))
            }
            return Int16(sum / channels)
        }
    }

    private static func littleEndian16<C: RandomAccessCollection<UInt8>>(_ bytes: C, at index: C.Index) -> UInt16
    where C.Index == Int {
        UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
    }

    private static func littleEndian32(_ bytes: [UInt8], at index: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[index + $1]) << (8 * UInt32($1)) }
    }
}
