import Foundation
import Testing

/// Compares `actual` with the golden file `<directory>/<named>.txt`, showing ESC as `␛` so diffs stay readable.
///
/// With `RECORD_SNAPSHOTS=1` in the environment, or when the file does not exist yet, the file is (re)written
/// instead; a missing file is still reported as a failure so a new snapshot is looked at before it is trusted.
/// `directory` is usually derived from `#filePath` of the calling test.
public func assertGolden(
    _ actual: String, named: String, in directory: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let visible = actual.replacingOccurrences(of: "\u{1B}", with: "␛")
    let url = URL(fileURLWithPath: directory).appendingPathComponent(named + ".txt")
    let recording = ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1"
    let existing = try? String(contentsOf: url, encoding: .utf8)
    if recording || existing == nil {
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try visible.write(to: url, atomically: true, encoding: .utf8)
        } catch {
            Issue.record("Cannot write snapshot \(url.path): \(error)", sourceLocation: sourceLocation)
        }
        if existing == nil && !recording {
            Issue.record("Recorded new snapshot \(url.path); check it and run again", sourceLocation: sourceLocation)
        }
        return
    }
    guard let existing, existing != visible else { return }
    let expectedLines = existing.components(separatedBy: "\n")
    let actualLines = visible.components(separatedBy: "\n")
    let firstDifference =
        zip(expectedLines, actualLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        ?? min(expectedLines.count, actualLines.count)
    let expectedLine = firstDifference < expectedLines.count ? expectedLines[firstDifference] : "<end>"
    let actualLine = firstDifference < actualLines.count ? actualLines[firstDifference] : "<end>"
    Issue.record(
        """
        Snapshot \(named) differs at line \(firstDifference + 1) (RECORD_SNAPSHOTS=1 to re-record):
          expected: \(expectedLine)
          actual:   \(actualLine)
        """, sourceLocation: sourceLocation)
}

/// The `Snapshots` folder next to the test file whose `#filePath` is given.
public func snapshotDirectory(for filePath: String) -> String {
    URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("Snapshots").path
}
