import Foundation
import Simulator
import TestSupport
import Testing

/// A library that cannot grow (here a file size limit, so writes fail as on a full disk) still keeps what fits.
extension AskCommandTests {
    @Test func aReplyLargerThanTheLibraryCanGrowKeepsWhatFitsAndSaysHowMuch() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        _ = try await cli.run(["ask", "echo:create the library first"])
        // 3 MiB per file: the 5 MB answer cannot be written whole; SIGXFSZ ignored, so writes fail with EFBIG.
        let limited = #"ulimit -f 3072 && trap '' XFSZ && exec "$0" "$@""#
        let result = try await ProcessRunner.run(
            "/bin/bash", ["-c", limited, try BuiltProduct.path("llmster"), "ask", "[[sim:large=5000000]] big"],
            environment: cli.environment)
        #expect(result.status == 6, "incomplete: \(result.errors)")
        #expect(
            result.errors.contains("kept the first") && result.errors.contains("of 5.0 MB of the answer"),
            "\(result.errors)")
        let show = try await cli.run(["show", try latestConversation(cli)])
        #expect(show.status == 0)
        #expect(show.output.utf8.count > 500_000, "a large part of the answer is kept, not 0 bytes")
        #expect(show.output.contains("incomplete"))
    }

    @Test func aFullLibraryKeepsEverythingSavedWhileTheReplyStreamed() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        _ = try await cli.run(["ask", "echo:create the library first"])
        // 2.7 MB arrive, then the server is silent for 5 s (the reply is saved meanwhile), then 2.3 MB more: the whole
        // answer does not fit in 4 MiB, but what was saved while it streamed is kept, more than half of it. (With 3 MiB,
        // a save that caught the 2.7 MB in two steps filled the write-ahead log before the second step.)
        let limited = #"ulimit -f 4096 && trap '' XFSZ && exec "$0" "$@""#
        let prompt = "[[sim:large=5000000,delta=900000,stall=5]] big"
        let result = try await ProcessRunner.run(
            "/bin/bash", ["-c", limited, try BuiltProduct.path("llmster"), "ask", prompt],
            environment: cli.environment)
        #expect(result.status == 6, "incomplete: \(result.errors)")
        #expect(result.errors.contains("of 5.0 MB of the answer"), "\(result.errors)")
        let show = try await cli.run(["show", try latestConversation(cli)])
        #expect(show.output.utf8.count > 2_700_000, "the 2.7 MB saved while streaming are kept")
        #expect(show.output.contains("incomplete"))
    }
}
