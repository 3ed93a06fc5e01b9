/// A gzip member written incrementally from stored (uncompressed) deflate blocks, as a compressing proxy in front
/// of LM Studio would send with `Content-Encoding: gzip`; any gzip reader decodes it.
struct Gzip {
    private var crc: UInt32 = 0xFFFF_FFFF
    private var size: UInt32 = 0

    /// The member header: magic, deflate, no flags, no time, unknown OS.
    static let header: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF]

    /// `bytes` as non-final stored blocks of at most 65,535 bytes.
    mutating func blocks(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var start = 0
        while start < bytes.count {
            let end = min(start + 0xFFFF, bytes.count)
            out += Self.storedBlock(bytes[start..<end], final: false)
            start = end
        }
        for byte in bytes { crc = Self.table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        size &+= UInt32(truncatingIfNeeded: bytes.count)
        return out
    }

    /// The final empty block and the trailer (CRC-32 and length of everything passed to `blocks`).
    func end() -> [UInt8] {
        Self.storedBlock([], final: true) + Self.littleEndian(~crc) + Self.littleEndian(size)
    }

    /// A whole gzip member holding `bytes`.
    static func member(_ bytes: [UInt8]) -> [UInt8] {
        var gzip = Gzip()
        return header + gzip.blocks(bytes) + gzip.end()
    }

    private static func storedBlock(_ bytes: ArraySlice<UInt8>, final: Bool) -> [UInt8] {
        let length = UInt16(bytes.count)
        return [final ? 1 : 0, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            + bytes
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }
}
