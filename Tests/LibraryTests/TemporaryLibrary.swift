import Foundation
import Library

/// A library file in a fresh temporary directory, removed when the value is released.
final class TemporaryLibrary {
    let directory: String
    let path: String

    init() {
        directory = NSTemporaryDirectory() + "llmster-library-tests-" + UUID().uuidString
        path = directory + "/data/library.sqlite3"
    }

    /// Opens a new store on the file.
    func open() throws -> LibraryStore { try LibraryStore(path: path) }

    deinit { try? FileManager.default.removeItem(atPath: directory) }
}
