import Foundation
import Glibc
import SystemSupport

/// The short sound that says listening began: the bundled chime through a player, else the terminal bell.
enum Chime {
    /// Plays the chime to its end, so the microphone does not hear it.
    static func play(environment: [String: String]) {
        if let sound = soundFile(),
            let player = ChildProcess.firstAvailable(["paplay", "aplay"], path: environment["PATH"]),
            let process = try? ChildProcess(
                player == "aplay" ? ["aplay", "-q", sound] : ["paplay", sound], captureOutput: false)
        {
            process.finish()
            if process.succeeded { return }
        }
        if isatty(2) == 1 { try? Descriptor.writeAll(2, [0x07]) }
    }

    /// The bundled `sounds/chime.wav` (see `BundledFiles`).
    static func soundFile() -> String? { BundledFiles.path("sounds/chime.wav") }
}
