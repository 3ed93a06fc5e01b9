import Foundation
import Synchronization

/// Where 16 kHz mono 16-bit samples come from.
///
/// `read` blocks; it is called from the listening thread only, while `stop` may come from any thread.
protocol AudioSource: AnyObject {
    /// Up to `maximum` samples; empty at the end of the audio.
    func read(maximum: Int) throws(VoiceError) -> ArraySlice<Int16>
    /// Releases the device, if any, until the next `read`.
    func pause()
}

/// A WAV file's samples, read in order.
final class WAVFileSource: AudioSource {
    private let samples: [Int16]
    private var position = 0

    init(path: String) throws(VoiceError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadableAudio(
                path: path, reason: FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file")
        }
        samples = try WAVFile.samples(Array(data), path: path)
    }

    func read(maximum: Int) throws(VoiceError) -> ArraySlice<Int16> {
        let end = min(samples.count, position + maximum)
        defer { position = end }
        return samples[position..<end]
    }

    func pause() {}
}

/// The default capture device, through a recorder program writing raw samples to a pipe.
///
/// The recorder runs only while listening: `pause` ends it, so nothing is recorded while an answer is spoken.
final class CaptureSource: AudioSource {
    /// The recorder and its arguments.
    let command: [String]
    private let interruption: Interruption
    private var recorder: ChildProcess?
    private var pending: [UInt8] = []

    init(command: [String], interruption: Interruption) {
        self.command = command
        self.interruption = interruption
    }

    func read(maximum: Int) throws(VoiceError) -> ArraySlice<Int16> {
        if interruption.isInterrupted { return [] }
        let recorder = try startedRecorder()
        while pending.count < 2 {
            let chunk = recorder.readOutput(maximum: max(2, maximum * 2))
            if chunk.isEmpty {
                let message = recorder.finish()
                interruption.forget(recorder)
                self.recorder = nil
                if interruption.isInterrupted || recorder.endedBySignal { return [] }
                throw .capture(command: command.joined(separator: " "), message: message)
            }
            pending += chunk
        }
        let count = min(maximum, pending.count / 2)
        let samples = (0..<count).map { Int16(bitPattern: UInt16(pending[2 * $0]) | UInt16(pending[2 * $0 + 1]) << 8) }
        pending.removeFirst(count * 2)
        return samples[...]
    }

    func pause() {
        if let recorder {
            interruption.forget(recorder)
            recorder.terminate()
            _ = recorder.finish()
        }
        recorder = nil
        pending = []
    }

    private func startedRecorder() throws(VoiceError) -> ChildProcess {
        if let recorder { return recorder }
        do {
            let started = try ChildProcess(command, captureOutput: true)
            interruption.watch(started)
            recorder = started
            return started
        } catch {
            throw .capture(command: command.joined(separator: " "), message: String(describing: error))
        }
    }
}

/// Stops listening or speaking from another thread: marks the work interrupted and ends its child processes.
final class Interruption: Sendable {
    private let state = Mutex<(interrupted: Bool, processes: [ChildProcess])>((false, []))

    var isInterrupted: Bool { state.withLock { $0.interrupted } }

    /// Interrupts: running child processes are terminated, later ones are not started.
    func interrupt() {
        let processes = state.withLock { state in
            state.interrupted = true
            return state.processes
        }
        for process in processes { process.terminate() }
    }

    /// Terminates `process` on interruption (at once when already interrupted).
    func watch(_ process: ChildProcess) {
        let interrupted = state.withLock { state in
            state.processes.append(process)
            return state.interrupted
        }
        if interrupted { process.terminate() }
    }

    /// Stops watching `process`.
    func forget(_ process: ChildProcess) {
        state.withLock { $0.processes.removeAll { $0 === process } }
    }
}
