import LMStudio
import TerminalMarkdown
import Testing

@testable import Console

/// A download status with hostile figures (negative, huge, a speed near zero or infinite) is described, not trapped on.
@Suite struct HostileDownloadStatusTests {
    @Test(arguments: [
        DownloadStatus(status: "downloading", totalSizeBytes: 100, downloadedBytes: -5_000, bytesPerSecond: 1e-300),
        DownloadStatus(
            status: "downloading", totalSizeBytes: Int64.max, downloadedBytes: Int64.min, bytesPerSecond: 1e308),
        DownloadStatus(status: "downloading", totalSizeBytes: 10, downloadedBytes: Int64.max, bytesPerSecond: .infinity)
    ])
    func hostileFiguresStillDescribeTheDownload(status: DownloadStatus) {
        let line = DownloadProgressLine.describe(status, name: "acme/x")
        #expect(line.hasPrefix("Downloading acme/x ▕"), "\(line)")
    }

    /// Fitted to a width, the line stays one column short of it: the name is cut first, then details go.
    @Test(arguments: [12, 30, 40, 60, 80, 200])
    func fittedLinesStayInsideTheWidth(width: Int) {
        let status = DownloadStatus(
            status: "downloading", totalSizeBytes: 2_700_000_000, downloadedBytes: 1_200_000_000,
            bytesPerSecond: 35_000_000)
        let line = DownloadProgressLine.describe(status, name: "acme/a-very-long-model-name-GGUF-Q4_K_M", width: width)
        #expect(DisplayWidth.of(line) <= width - 1, "\(line)")
        #expect(line.hasPrefix("Download"))
        if width >= 80 { #expect(line.contains(" MB/s"), "the figures outrank the rest of the name") }
        if width >= 100 { #expect(line.hasSuffix(" left")) }
        if width >= 40 { #expect(line.contains("44%")) }
    }
}
