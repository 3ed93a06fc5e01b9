import Foundation
import TestSupport
import Testing

/// What llmster makes of the configuration file a user wrote: numbers out of range, Windows line ends, a pasted
/// token, a path that is no regular file.
@Suite(.spawnsProcesses) struct ConfigurationFileTests {
    private func run(config: String, _ arguments: [String]) async throws -> (CLI, ProcessResult) {
        let cli = try CLI(server: "http://127.0.0.1:\(unusedPort())")
        try cli.sandbox.write(config, to: "config/llmster/config")
        return (cli, try await cli.run(arguments))
    }

    @Test(arguments: [
        ("idle_timeout", "-1", "seconds from 1 to 86400"), ("idle_timeout", "0", "seconds from 1 to 86400"),
        ("connect_timeout", "-5", "seconds above 0, at most 600"),
        ("display_interval_ms", "-1", "a whole number from 0 to 10000"),
        ("context_length", "-4096", "a whole number from 1 to 2147483647"),
        ("reasoning_tail_lines", "-2", "a whole number from 0 to 100"),
        ("notify_after_seconds", "nan", "seconds from 0 to 86400"),
        ("voice_silence_seconds", "0", "seconds above 0, at most 60"),
        ("context_length", "8k", "a whole number from 1 to 2147483647")
    ])
    func aNumberOutsideItsRangeIsRefusedNamingKeyValueAndRange(key: String, value: String, range: String) async throws {
        let (_, result) = try await run(config: "\(key) = \(value)\n", ["chats"])
        #expect(result.status == 1, "\(result)")
        #expect(result.errors.contains("'\(value)' is not a valid \(key): expected \(range)"), "\(result)")
    }

    @Test func aTokenPastedAsABareLineIsNotEchoed() async throws {
        let (_, result) = try await run(
            config: "default_model = acme/tiny-1b\nsk-lm-Qx7Zt3Lp:Vn2Rk8Hs4Wd9\n", ["chats"])
        #expect(result.status == 1, "\(result)")
        #expect(result.errors.contains("line 2 is not `key = value`: it has no `=`"), "\(result)")
        #expect(!result.errors.contains("Vn2Rk8Hs4Wd9") && !result.errors.contains("sk-lm"), "\(result)")
    }

    @Test func aFileWithAByteOrderMarkAndCRLFLineEndsIsRead() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        try cli.sandbox.write(
            "\u{FEFF}# saved by a Windows editor\r\ndefault_model = acme/thinker-8b\r\nidle_timeout = 30\r\n",
            to: "config/llmster/config")
        let result = try await cli.run(["ask", "echo:hello"])
        #expect(result.status == 0, "\(result)")
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("model") == "acme/thinker-8b")
    }

    @Test func aDeviceOrAFIFOGivenAsTheConfigurationIsAnError() async throws {
        let cli = try CLI(server: "http://127.0.0.1:\(unusedPort())")
        let device = try await cli.run(["--config", "/dev/zero", "chats"])
        #expect(device.status == 1, "\(device)")
        #expect(device.errors.contains("/dev/zero is a character device, not a regular file"), "\(device)")

        let fifo = cli.sandbox.root + "/config.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let running = try cli.start(["--config", fifo, "chats"])
        // Only a safety net: a reader blocked on the FIFO would otherwise hang the suite.
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) {
            if running.process.isRunning { running.signal(SIGKILL) }
        }
        let result = await running.wait()
        #expect(!result.killedBySignal && result.status == 1, "\(result)")
        #expect(result.errors.contains("config.fifo is a FIFO (named pipe), not a regular file"), "\(result)")
    }
}
