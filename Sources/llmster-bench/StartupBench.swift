import Foundation

/// Start-up: wall time of `llmster --version` and of `llmster models --help` (parses commands, opens nothing).
func startupBench() async throws {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let executable = directory.appendingPathComponent("llmster").path
    guard FileManager.default.isExecutableFile(atPath: executable) else {
        print("llmster is not built beside llmster-bench (\(executable))")
        return
    }
    for arguments in [["--version"], ["models", "--help"]] {
        var samples: [Double] = []
        for _ in 0..<30 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            let start = ContinuousClock.now
            try process.run()
            process.waitUntilExit()
            let elapsed = ContinuousClock.now - start
            samples.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        }
        samples.sort()
        let median = samples[samples.count / 2]
        print(String(format: "llmster %@: median %.1f ms, min %.1f ms, max %.1f ms over %d runs",
                     arguments.joined(separator: " "), median, samples.first!, samples.last!, samples.count))
    }
}
