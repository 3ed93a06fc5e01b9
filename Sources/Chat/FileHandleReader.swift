import Foundation

/// Reads a whole file with a size cap, so a huge or endless file (e.g. `/dev/zero`) cannot exhaust memory.
struct FileHandleReader {
    private let handle: FileHandle

    init?(path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        self.handle = handle
    }

    /// The file's bytes, or nil when it holds more than `limit` bytes.
    func read(limit: Int) -> [UInt8]? {
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: limit + 1), data.count <= limit else { return nil }
        return [UInt8](data)
    }
}
