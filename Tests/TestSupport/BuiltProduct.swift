import Foundation

/// The executables SwiftPM built beside the test bundle (`make test` builds them before testing).
public enum BuiltProduct {
    /// The directory holding the test bundle and the built executables.
    public static let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()

    /// The path of the built executable `name`; throws when it was not built, so the test fails rather than skips.
    public static func path(_ name: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw BuiltProductMissing(name: name, directory: directory.path)
        }
        return url.path
    }
}

/// An executable the end-to-end tests need was not built.
public struct BuiltProductMissing: Error, CustomStringConvertible {
    public let name: String
    public let directory: String
    public var description: String {
        "\(name) is not built in \(directory): run `swift build --build-tests` (make test does)"
    }
}
