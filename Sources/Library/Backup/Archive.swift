internal import CSodium
import Foundation
import SystemSupport

/// The cost of deriving a backup's key from its password (libsodium Argon2id).
public struct KeyDerivationLimits: Equatable, Sendable {
    /// Passes over memory.
    public var operations: UInt64
    /// Bytes of memory.
    public var memory: UInt64

    /// Creates limits from their values.
    public init(operations: UInt64, memory: UInt64) {
        self.operations = operations
        self.memory = memory
    }

    /// libsodium's MODERATE limits (about 256 MiB, under a second): what `llmster backup` uses.
    public static var moderate: KeyDerivationLimits {
        KeyDerivationLimits(
            operations: UInt64(crypto_pwhash_opslimit_moderate()), memory: UInt64(crypto_pwhash_memlimit_moderate()))
    }

    /// libsodium's INTERACTIVE limits (64 MiB): for tests that derive many keys.
    public static var interactive: KeyDerivationLimits {
        KeyDerivationLimits(
            operations: UInt64(crypto_pwhash_opslimit_interactive()),
            memory: UInt64(crypto_pwhash_memlimit_interactive()))
    }

    /// "1.0 GiB of memory, 4 passes": what deriving a key with these limits costs, for a preview.
    public var summary: String {
        "\(Self.bytes(memory)) of memory, \(operations) pass\(operations == 1 ? "" : "es") (Argon2id)"
    }

    /// `256 MiB`, `1.0 GiB`: a size in binary units.
    public static func bytes(_ count: UInt64) -> String {
        if count >= 1 << 30 { return String(format: "%.1f GiB", Double(count) / Double(1 << 30)) }
        if count >= 1 << 20 { return "\(count >> 20) MiB" }
        return "\(count >> 10) KiB"
    }

    /// The most a header may ask for: libsodium's SENSITIVE limits; above is refused before allocating.
    static var ceiling: KeyDerivationLimits {
        KeyDerivationLimits(
            operations: UInt64(crypto_pwhash_opslimit_sensitive()), memory: UInt64(crypto_pwhash_memlimit_sensitive()))
    }
}

/// Which of the two llmster files an archive is; each has its own magic bytes.
enum ArchiveKind {
    case conversation, backup

    /// The first 8 bytes of the file.
    var magic: [UInt8] { Array((self == .conversation ? "LLMSTRCV" : "LLMSTRBK").utf8) }
    /// What the file is, for errors.
    var label: String { self == .conversation ? "a .llmster conversation file" : "an llmster backup" }
}

/// The kinds of record inside an archive (see llmster-format(5)).
enum RecordType: UInt8 {
    /// JSON: the export or backup manifest.
    case manifest = 0x4D
    /// JSON: the folder tree (backups).
    case folders = 0x46
    /// JSON: one conversation with its messages.
    case conversation = 0x43
    /// Raw bytes of one attachment, in the order the preceding conversation lists them.
    case attachment = 0x41
    /// SHA-256 of every record before it; the last record.
    case end = 0x45
}

/// The format's constants.
enum ArchiveFormat {
    /// The format version this build writes and reads.
    static let version: UInt8 = 1
    /// Plaintext bytes per frame.
    static let chunkSize = 64 * 1024
    /// The largest JSON record.
    static let maximumJSONRecord = 64 * 1024 * 1024
    /// The largest attachment.
    static let maximumAttachment = 256 * 1024 * 1024
    /// Set in a frame's length word on the last frame.
    static let finalFlag: UInt32 = 0x8000_0000
    /// Whether `sodium_init` succeeded (once per process).
    static let sodiumReady: Bool = sodium_init() >= 0
}

/// Writes records into frames, encrypting each frame when a password is given.
final class ArchiveWriter {
    private let sink: ByteSink
    private var pending: [UInt8] = []
    private var digest = crypto_hash_sha256_state()
    private var stream: crypto_secretstream_xchacha20poly1305_state?
    private var header: [UInt8]

    /// Writes the header; `password` nil writes an unencrypted archive.
    init(kind: ArchiveKind, sink: ByteSink, password: [UInt8]?, limits: KeyDerivationLimits) throws {
        precondition(ArchiveFormat.sodiumReady, "libsodium failed to initialise")
        self.sink = sink
        header = kind.magic + [ArchiveFormat.version, password == nil ? 0 : 1]
        crypto_hash_sha256_init(&digest)
        if let password {
            var salt = [UInt8](repeating: 0, count: Int(crypto_pwhash_saltbytes()))
            randombytes_buf(&salt, salt.count)
            header += salt + limits.operations.bigEndianBytes + limits.memory.bigEndianBytes
            var key = try Self.key(password: password, salt: salt, limits: limits)
            defer { sodium_memzero(&key, key.count) }
            var state = crypto_secretstream_xchacha20poly1305_state()
            var streamHeader = [UInt8](repeating: 0, count: Int(crypto_secretstream_xchacha20poly1305_headerbytes()))
            crypto_secretstream_xchacha20poly1305_init_push(&state, &streamHeader, key)
            header += streamHeader
            stream = state
        }
        try sink.write(header)
    }

    /// Derives the 32-byte stream key.
    static func key(password: [UInt8], salt: [UInt8], limits: KeyDerivationLimits) throws -> [UInt8] {
        var key = [UInt8](repeating: 0, count: Int(crypto_secretstream_xchacha20poly1305_keybytes()))
        var characters = password.map { CChar(bitPattern: $0) } + [0]
        defer { sodium_memzero(&characters, characters.count) }
        let status = crypto_pwhash(
            &key, UInt64(key.count), characters, UInt64(password.count), salt, limits.operations,
            Int(limits.memory), crypto_pwhash_alg_argon2id13())
        guard status == 0 else { throw ArchiveError.keyDerivationFailed }
        return key
    }

    /// Appends one record.
    func record(_ type: RecordType, _ payload: [UInt8]) throws {
        let head = [type.rawValue] + UInt32(payload.count).bigEndianBytes
        crypto_hash_sha256_update(&digest, head, UInt64(head.count))
        crypto_hash_sha256_update(&digest, payload, UInt64(payload.count))
        try append(head)
        try append(payload)
    }

    /// Appends one JSON record.
    func record<T: Encodable>(_ type: RecordType, json value: T) throws {
        try record(type, try ArchiveJSON.encode(value))
    }

    /// Writes the end record and the final frame; the archive is complete after this.
    func finish() throws {
        var hash = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        crypto_hash_sha256_final(&digest, &hash)
        let head = [RecordType.end.rawValue] + UInt32(hash.count).bigEndianBytes
        pending += head + hash
        while pending.count > ArchiveFormat.chunkSize { try emit(final: false) }
        try emit(final: true)
        try sink.flush()
    }

    private func append(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let take = min(ArchiveFormat.chunkSize - pending.count, bytes.count - offset)
            pending += bytes[offset..<(offset + take)]
            offset += take
            if pending.count == ArchiveFormat.chunkSize { try emit(final: false) }
        }
    }

    private func emit(final: Bool) throws {
        let count = min(pending.count, ArchiveFormat.chunkSize)
        let chunk = Array(pending[..<count])
        pending.removeSubrange(..<count)
        var frame = chunk
        if var state = stream {
            frame = [UInt8](repeating: 0, count: chunk.count + Int(crypto_secretstream_xchacha20poly1305_abytes()))
            let tag =
                final
                ? crypto_secretstream_xchacha20poly1305_tag_final()
                : crypto_secretstream_xchacha20poly1305_tag_message()
            crypto_secretstream_xchacha20poly1305_push(
                &state, &frame, nil, chunk, UInt64(chunk.count), header, UInt64(header.count), tag)
            stream = state
        }
        try sink.write((UInt32(frame.count) | (final ? ArchiveFormat.finalFlag : 0)).bigEndianBytes + frame)
    }
}

/// Reads and checks an archive record by record: frames authenticated (or checksummed), sizes capped, the end verified.
final class ArchiveReader {
    private let source: ByteSource
    private var header: [UInt8]
    private var stream: crypto_secretstream_xchacha20poly1305_state?
    private var digest = crypto_hash_sha256_state()
    private var plain: [UInt8] = []
    private var plainOffset = 0
    private var sawFinalFrame = false
    /// Whether the archive is encrypted.
    let encrypted: Bool

    /// Reads the header; `password` is asked for only when the archive is encrypted.
    init(kind: ArchiveKind, source: ByteSource, name: String, password: () throws -> [UInt8]?) throws {
        precondition(ArchiveFormat.sodiumReady, "libsodium failed to initialise")
        self.source = source
        let start = try source.read(upTo: kind.magic.count + 2)
        guard start.count == kind.magic.count + 2, Array(start.prefix(kind.magic.count)) == kind.magic else {
            throw ArchiveError.notAnArchive(path: name, expected: kind.label)
        }
        header = start
        guard start[kind.magic.count] == ArchiveFormat.version else {
            throw ArchiveError.unsupportedVersion(
                found: Int(start[kind.magic.count]), supported: Int(ArchiveFormat.version))
        }
        crypto_hash_sha256_init(&digest)
        switch start[kind.magic.count + 1] {
        case 0:
            encrypted = false
        case 1 where kind == .backup:
            encrypted = true
            let saltCount = Int(crypto_pwhash_saltbytes())
            let rest = try source.read(
                exactly: saltCount + 16 + Int(crypto_secretstream_xchacha20poly1305_headerbytes()))
            header += rest
            let salt = Array(rest[..<saltCount])
            let limits = KeyDerivationLimits(
                operations: UInt64(bigEndian: rest[saltCount..<(saltCount + 8)]),
                memory: UInt64(bigEndian: rest[(saltCount + 8)..<(saltCount + 16)]))
            let ceiling = KeyDerivationLimits.ceiling
            guard limits.operations >= UInt64(crypto_pwhash_opslimit_min()), limits.operations <= ceiling.operations,
                limits.memory >= UInt64(crypto_pwhash_memlimit_min()), limits.memory <= ceiling.memory
            else { throw ArchiveError.damaged("the header's key derivation limits are out of range") }
            guard var password = try password() else { throw ArchiveError.passwordRequired }
            defer { sodium_memzero(&password, password.count) }
            var key = try ArchiveWriter.key(password: password, salt: salt, limits: limits)
            defer { sodium_memzero(&key, key.count) }
            var state = crypto_secretstream_xchacha20poly1305_state()
            guard crypto_secretstream_xchacha20poly1305_init_pull(&state, Array(rest[(saltCount + 16)...]), key) == 0
            else { throw ArchiveError.wrongPasswordOrDamaged }
            stream = state
        default:
            throw ArchiveError.damaged("unknown flags in the header")
        }
    }

    /// The next record's type and payload (at most `limit` bytes), or nil after the verified end record.
    func next(limit: (RecordType) -> Int) throws -> (RecordType, [UInt8])? {
        let head = try readPlain(5)
        guard let type = RecordType(rawValue: head[0]) else {
            throw ArchiveError.damaged("unknown record type 0x\(String(head[0], radix: 16))")
        }
        let size = Int(UInt32(bigEndian: head[1...]))
        if type == .end {
            guard size == Int(crypto_hash_sha256_BYTES) else { throw ArchiveError.damaged("a malformed end record") }
            var expected = [UInt8](repeating: 0, count: size)
            crypto_hash_sha256_final(&digest, &expected)
            guard try readPlain(size) == expected else { throw ArchiveError.damaged("the checksum does not match") }
            guard sawFinalFrame, plainOffset == plain.count, try source.read(upTo: 1).isEmpty else {
                throw ArchiveError.damaged("data after the end record")
            }
            return nil
        }
        let maximum = limit(type)
        guard size <= maximum else { throw ArchiveError.tooLarge(part: "a record", size: size, limit: maximum) }
        let payload = try readPlain(size)
        crypto_hash_sha256_update(&digest, head, UInt64(head.count))
        crypto_hash_sha256_update(&digest, payload, UInt64(payload.count))
        return (type, payload)
    }

    /// Exactly `count` plaintext bytes across frames, growing only as frames arrive.
    private func readPlain(_ count: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while bytes.count < count {
            if plainOffset == plain.count { try nextFrame() }
            let take = min(count - bytes.count, plain.count - plainOffset)
            bytes += plain[plainOffset..<(plainOffset + take)]
            plainOffset += take
        }
        return bytes
    }

    private func nextFrame() throws {
        guard !sawFinalFrame else { throw ArchiveError.damaged("records continue after the final frame") }
        let word = UInt32(bigEndian: try source.read(exactly: 4)[...])
        let final = word & ArchiveFormat.finalFlag != 0
        let size = Int(word & ~ArchiveFormat.finalFlag)
        let overhead = stream == nil ? 0 : Int(crypto_secretstream_xchacha20poly1305_abytes())
        guard size <= ArchiveFormat.chunkSize + overhead, size >= overhead else {
            throw ArchiveError.tooLarge(part: "a frame", size: size, limit: ArchiveFormat.chunkSize + overhead)
        }
        let frame = try source.read(exactly: size)
        if var state = stream {
            var chunk = [UInt8](repeating: 0, count: size - overhead)
            var tag: UInt8 = 0
            guard
                crypto_secretstream_xchacha20poly1305_pull(
                    &state, &chunk, nil, &tag, frame, UInt64(frame.count), header, UInt64(header.count)) == 0
            else { throw ArchiveError.wrongPasswordOrDamaged }
            stream = state
            guard (tag == crypto_secretstream_xchacha20poly1305_tag_final()) == final else {
                throw ArchiveError.damaged("the final frame is marked wrongly")
            }
            plain = chunk
        } else {
            plain = frame
        }
        plainOffset = 0
        sawFinalFrame = final
    }
}

/// JSON coding shared by both archive kinds: sorted keys, decoding errors rewritten for people.
enum ArchiveJSON {
    /// `value` as JSON with sorted keys (equal records encode to equal bytes) and every one of `UnsafeScalars` written
    /// as a `\uXXXX` escape: the encoder escapes C0 controls itself, not C1 controls, bidi controls or the line
    /// separators, which a file viewer would otherwise pass on raw.
    static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = Array(try encoder.encode(value))
        guard UnsafeScalars.any(inUTF8: json, exceptNewlineAndTab: false) else { return json }
        // Outside strings JSON is ASCII, so every such scalar is inside a string, where an escape means the same.
        var escaped: [UInt8] = []
        escaped.reserveCapacity(json.count + 64)
        var index = 0
        while index < json.count {
            let lead = json[index]
            let length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
            var value = length == 1 ? UInt32(lead) : UInt32(lead) & (0x7F >> length)
            for offset in 1..<length { value = value << 6 | UInt32(json[index + offset] & 0x3F) }
            if let scalar = Unicode.Scalar(value), UnsafeScalars.contains(scalar) {
                escaped += Array(UnsafeScalars.jsonEscape(scalar).utf8)
            } else {
                escaped += json[index..<(index + length)]
            }
            index += length
        }
        return escaped
    }

    /// Decodes a record, turning a `DecodingError` into `ArchiveError.invalid` naming the field.
    static func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8], record: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(bytes))
        } catch let error as DecodingError {
            switch error {
            case .keyNotFound(let key, let context):
                throw ArchiveError.invalid("\(record): missing field \(path(context.codingPath + [key]))")
            case .valueNotFound(_, let context), .typeMismatch(_, let context):
                throw ArchiveError.invalid("\(record): field \(path(context.codingPath)) has the wrong type")
            case .dataCorrupted(let context):
                throw ArchiveError.invalid("\(record): \(path(context.codingPath)) \(context.debugDescription)")
            @unknown default:
                throw ArchiveError.invalid("\(record): \(error)")
            }
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "(top level)" : keys.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined()
    }
}

extension FixedWidthInteger {
    /// The value's bytes, most significant first.
    var bigEndianBytes: [UInt8] { withUnsafeBytes(of: bigEndian) { Array($0) } }

    /// Reads a value from its bytes, most significant first.
    init(bigEndian bytes: ArraySlice<UInt8>) {
        self = bytes.reduce(0) { $0 << 8 | Self($1) }
    }
}
