import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The short sound that says listening began: the bundled chime through a player, else the terminal bell.
enum Chime {
    /// Plays the chime to its end, so the microphone does not hear it.
    static func play(environment: [String: String]) {
        if let sound = soundFile(), let player = ChildProcess.firstAvailable(["paplay", "aplay"], path: environment["PATH"]),
           let process = try? ChildProcess(player == "aplay" ? ["aplay", "-q", sound] : ["paplay", sound], captureOutput: false) {
            process.finish()
            if process.succeeded { return }
        }
        if isatty(2) == 1 { FileHandle.standardError.write(Data([0x07])) }
    }

    /// `share/llmster/sounds/chime.wav` beside the installed executable, or `share/sounds/chime.wav` in a source tree.
    static func soundFile() -> String? {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            for candidate in ["share/llmster/sounds/chime.wav", "share/sounds/chime.wav"] {
                let path = directory.appendingPathComponent(candidate).path
                if FileManager.default.fileExists(atPath: path) { return path }
            }
            directory.deleteLastPathComponent()
        }
        return nil
    }
}
