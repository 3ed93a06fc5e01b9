import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Start-up: CPU and wall time of `llmster --version` and of `llmster models --help` (parses commands, opens
/// nothing), for the release build beside llmster-bench and, when `LLMSTER_PACKAGED` names it, the packaged
/// binary (`make bench` passes the one `make dist` staged). The goal is under 20 ms of CPU for each.
func startupBench() async throws {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    var binaries = [("release build", directory.appendingPathComponent("llmster").path)]
    if let packaged = ProcessInfo.processInfo.environment["LLMSTER_PACKAGED"] {
        binaries.append(("packaged", packaged))
    }
    for (name, executable) in binaries {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            print("llmster (\(name)) is not built at \(executable)")
            continue
        }
        for arguments in [["--version"], ["models", "--help"]] {
            var wall: [Double] = []
            var cpu: [Double] = []
            for _ in 0..<30 {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: executable)
                process.arguments = arguments
                process.standardOutput = FileHandle.nullDevice
                let cpuBefore = childrenCPUMilliseconds()
                let start = ContinuousClock.now
                try process.run()
                process.waitUntilExit()
                wall.append(milliseconds(ContinuousClock.now - start))
                cpu.append(childrenCPUMilliseconds() - cpuBefore)
            }
            wall.sort()
            cpu.sort()
            print(
                String(
                    format:
                        "llmster %@ (%@): CPU median %.1f ms (min %.1f, max %.1f), wall median %.1f ms over %d runs%@",
                    arguments.joined(separator: " "), name, cpu[cpu.count / 2], cpu.first!, cpu.last!,
                    wall[wall.count / 2], wall.count, cpu[cpu.count / 2] < 20 ? "" : "  (over the 20 ms goal)"))
        }
    }
}

/// User plus system CPU time of every child waited for so far; a child's share is the difference across its run.
private func childrenCPUMilliseconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000
}

private func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}
