import Foundation

/// Fresh paths under the temporary directory.
enum FileManagerPath {
    /// A path that does not exist yet, in a directory of its own.
    static func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("llmster-console-\(UUID().uuidString)/\(name)")
            .path
    }
}
