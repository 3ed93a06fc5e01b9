import LMStudio
import Testing
@testable import Console

/// A download status with hostile figures (negative, huge, a speed near zero or infinite) is described, not trapped on.
@Suite struct HostileDownloadStatusTests {
    @Test(arguments: [
        DownloadStatus(status: "downloading", totalSizeBytes: 100, downloadedBytes: -5_000, bytesPerSecond: 1e-300),
        DownloadStatus(status: "downloading", totalSizeBytes: Int64.max, downloadedBytes: Int64.min, bytesPerSecond: 1e308),
        DownloadStatus(status: "downloading", totalSizeBytes: 10, downloadedBytes: Int64.max, bytesPerSecond: .infinity),
    ])
    func hostileFiguresStillDescribeTheDownload(status: DownloadStatus) {
        let line = DownloadProgressLine.describe(status, name: "acme/x")
        #expect(line.hasPrefix("Downloading acme/x ▕"), "\(line)")
    }
}
