import Foundation
import SystemSupport

/// Where an archive's bytes go: a file descriptor, written through a buffer.
final class ByteSink {
    private let descriptor: Int32
    private let name: String
    private var buffer: [UInt8] = []

    /// Writes to `descriptor` (not closed here); `name` appears in errors.
    init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
        buffer.reserveCapacity(1 << 16)
    }

    /// Appends bytes, writing whenever 64 KiB have gathered.
    func write(_ bytes: [UInt8]) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { try flush() }
    }

    /// Writes everything buffered.
    func flush() throws {
        do { try Descriptor.writeAll(descriptor, buffer) } catch {
            throw ArchiveError.io(path: name, reason: error.reason)
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Where an archive's bytes come from: a file descriptor.
final class ByteSource {
    private let descriptor: Int32
    private let name: String

    /// Reads from `descriptor` (not closed here); `name` appears in errors.
    init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
    }

    /// Up to `count` bytes; fewer only at the end of the file.
    func read(upTo count: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while bytes.count < count {
            let chunk: [UInt8]
            do { chunk = try Descriptor.readSome(descriptor, maximum: count - bytes.count) } catch {
                throw ArchiveError.io(path: name, reason: error.reason)
            }
            if chunk.isEmpty { break }
            if bytes.isEmpty { bytes = chunk } else { bytes += chunk }
        }
        return bytes
    }

    /// Exactly `count` bytes, or `ArchiveError.truncated`.
    func read(exactly count: Int) throws -> [UInt8] {
        let bytes = try read(upTo: count)
        guard bytes.count == count else { throw ArchiveError.truncated }
        return bytes
    }
}

/// A file open for reading, closed in `deinit`.
final class OpenFile {
    /// The open descriptor.
    let descriptor: Int32
    /// The file, for errors.
    let path: String

    /// Opens `path` for reading.
    init(reading path: String) throws {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ArchiveError.io(path: path, reason: String(cString: strerror(errno))) }
    }

    deinit { close(descriptor) }
}

/// Writes the output file `path` through a `ByteSink` as `OutputFile` does: a regular file (mode 0600) atomically, so
/// readers never see half a file, a symlink's target in its place, a FIFO or device in place.
func writeOutput(to path: String, _ body: (ByteSink) throws -> Void) throws {
    do {
        try OutputFile(path).write(permissions: 0o600) { descriptor in
            let sink = ByteSink(descriptor: descriptor, name: path)
            try body(sink)
            try sink.flush()
        }
    } catch let error as AtomicFileError {
        throw ArchiveError.io(path: error.path, reason: error.reason)
    } catch let error as OutputFileError {
        throw ArchiveError.io(path: error.path, reason: error.problem)
    }
}
