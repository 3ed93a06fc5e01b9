import Foundation

/// The files llmster ships beside its executable: `share/` of the source tree, installed as `PREFIX/share/llmster`.
public enum BundledFiles {
    /// The directory holding the shipped files: `share/llmster` above the installed executable, or `share` of the
    /// source tree above a built one (`.build/…/debug/llmster`); nil when neither exists. Looked up once per process.
    public static let directory: String? = {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            let installed = directory.appendingPathComponent("share/llmster").path
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: installed, isDirectory: &isDirectory), isDirectory.boolValue {
                return installed
            }
            let sourceTree = directory.appendingPathComponent("share").path
            if FileManager.default.fileExists(atPath: sourceTree + "/config.sample") { return sourceTree }
            directory.deleteLastPathComponent()
        }
        return nil
    }()

    /// The path of `relative` (such as `sounds/chime.wav`) among the shipped files, when it exists.
    public static func path(_ relative: String) -> String? {
        guard let directory else { return nil }
        let path = directory + "/" + relative
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }
}
