/// Reads text aloud with a locally installed voice: `LLMSTER_SPEAK_COMMAND` (a shell command reading the text
/// on standard input), else espeak-ng.
struct SpeechSynthesizer: Sendable {
    /// The program and its arguments; the text goes to its standard input.
    let command: [String]

    /// The configured command, else espeak-ng when it is installed; nil when neither is available.
    init?(environment: [String: String]) {
        if let configured = environment["LLMSTER_SPEAK_COMMAND"], !configured.isEmpty {
            command = ["/bin/sh", "-c", configured]
        } else if ChildProcess.firstAvailable(["espeak-ng"], path: environment["PATH"]) != nil {
            command = ["espeak-ng", "--stdin"]
        } else {
            return nil
        }
    }

    /// Speaks `text` and returns when speech has finished; returns why it failed, if it did.
    func speak(_ text: String, interruption: Interruption) -> String? {
        guard !interruption.isInterrupted else { return nil }
        let process: ChildProcess
        do { process = try ChildProcess(command, captureOutput: false) } catch { return String(describing: error) }
        interruption.watch(process)
        defer { interruption.forget(process) }
        process.send(text)
        let message = process.finish()
        return process.succeeded || process.endedBySignal || interruption.isInterrupted ? nil : message
    }
}
