import Chat
import Foundation
import LMStudio
import Markdown
import Synchronization
import SystemSupport
import TerminalMarkdown

/// `llmster download`: starts a server-side download and watches it until it ends.
enum DownloadCommand {
    static let command = Command(
        "download",
        forms: [UsageForm("ID|URL", [.quantization, .interval]), UsageForm(required: [.status])],
        summary: "Download a model on the server (catalog id or Hugging Face URL) and show its progress.",
        details: """
            Progress (bytes, speed, time left) comes from the server's job status. Ctrl-C stops watching,
            not the download: `llmster download --status JOB` watches again. A model that is already on the
            server is reported as such. Exit status 0 when the model is there, 1 when the job failed,
            130 after Ctrl-C.
            """,
        options: [
            .init([.quantization], value: "Q", help: "the quantization to download, e.g. Q4_K_M"),
            .init([.status], value: "JOB", help: "watch an existing download job"),
            .init([.interval], value: "SECONDS", help: "seconds between status polls (default 1)")
        ]
    ) { arguments, context in
        let interval =
            try arguments.value(.interval).map { text in
                guard let value = Double(text), value > 0, value <= 60 else {
                    throw UsageError("--interval takes seconds between 0 and 60")
                }
                return value
            } ?? 1
        let session = try context.session()
        var status: DownloadStatus
        var name: String
        if let job = arguments.value(.status) {
            guard arguments.positionals.isEmpty else { throw UsageError("give a MODEL or --status JOB, not both") }
            status = try await session.downloadStatus(jobId: job)
            name = job
        } else {
            guard arguments.positionals.count == 1,
                !arguments.positionals[0].trimmingCharacters(in: .whitespaces).isEmpty
            else {
                throw UsageError("name one model to download")
            }
            name = arguments.positionals[0]
            status = try await session.download(
                DownloadRequest(model: name, quantization: arguments.value(.quantization)))
        }
        if status.status == "already_downloaded" {
            context.output.line("\(name) is already downloaded on the server.")
            return ExitCode.success
        }
        guard let jobId = status.jobId else {
            context.warn("the server started no download job (status \(status.status))")
            return ExitCode.failure
        }
        // The trap is in place before the line that invites Ctrl-C, so a Ctrl-C right after it is caught.
        let latch = SignalLatch()
        let watching = Mutex<Task<DownloadStatus, any Error>?>(nil)
        let trap = SignalTrap([SIGINT, SIGTERM]) { signal in
            latch.record(signal)
            watching.withLock { $0?.cancel() }
        }
        defer { trap.remove() }
        context.errors.line(
            "Download job \(UntrustedText.sanitize(jobId)) — Ctrl-C stops watching; the download goes on.")
        let progress = DownloadProgressLine(name: name, stream: context.errors, environment: context.environment)
        let watcher = Task {
            var current = status
            while current.status == "downloading" || current.status == "paused" {
                progress.show(current)
                try await Task.sleep(for: .seconds(interval))
                current = try await session.downloadStatus(jobId: jobId)
            }
            return current
        }
        watching.withLock { $0 = watcher }
        if latch.signal != nil { watcher.cancel() }
        let final: DownloadStatus
        do {
            final = try await watcher.value
        } catch {
            progress.clear()
            if let signal = latch.signal {
                context.errors.line(
                    "Stopped watching; the server keeps downloading. Watch again: llmster download --status \(jobId)")
                return SignalTrap.exitStatus(for: signal)
            }
            throw error
        }
        progress.clear()
        switch final.status {
        case "completed":
            context.output.line(
                "Downloaded \(UntrustedText.sanitize(name))"
                    + (final.totalSizeBytes.map { " (\(Units.bytes($0)))" } ?? "")
                    + ". `llmster models` lists it.")
            return ExitCode.success
        default:
            context.warn(
                "the download \(final.status == "failed" ? "failed" : "ended with status '\(final.status)'") on the server; see LM Studio's downloads for details"
            )
            return ExitCode.failure
        }
    }
}

/// The download's progress on standard error: replaced in place on a terminal, one line per 10 % otherwise.
final class DownloadProgressLine: Sendable {
    let name: String
    let stream: StandardStream
    private let inPlace: Bool
    private let environment: [String: String]
    private let lastDecile = Mutex(-1)

    /// Shows progress for `name` on `stream`, rewriting one line on a full terminal (not on a pipe or in line mode:
    /// `TERM=dumb`, an Emacs shell buffer; see `FrontEnd`).
    init(name: String, stream: StandardStream, environment: [String: String]) {
        self.name = name
        self.stream = stream
        self.environment = environment
        inPlace = TerminalCapabilities.detect(fd: stream.fd, environment: environment).allowsCursorMovement
    }

    func show(_ status: DownloadStatus) {
        if inPlace {
            let terminal = TerminalCapabilities.detect(fd: stream.fd, environment: environment)
            stream.send("\r\u{1B}[2K\(Self.describe(status, name: name, width: terminal.width, fit: terminal.textFit))")
            return
        }
        let decile = Int(Self.fraction(status) * 10)
        let isNew = lastDecile.withLock { last in
            defer { last = max(last, decile) }
            return decile > last
        }
        if isNew { stream.line(SanitizedMessage(untrusted: Self.describe(status, name: name))) }
    }

    func clear() { if inPlace { stream.send("\r\u{1B}[2K") } }

    static func fraction(_ status: DownloadStatus) -> Double {
        guard let total = status.totalSizeBytes, total > 0 else { return 0 }
        return min(1, max(0, Double(status.downloadedBytes ?? 0) / Double(total)))
    }

    /// `Downloading acme/x ▕████░░░░░░▏ 45% 1.2 GB of 2.7 GB · 35 MB/s · 0:45 left`; with a `width`, fitted into
    /// one row short of it (a redrawn line that wrapped would leave a row behind each time): the name is cut to as
    /// little as 16 columns, then the time left, the speed and the sizes are dropped in that order; `fit` measures and
    /// cuts (by default as a UTF-8 terminal does).
    static func describe(_ status: DownloadStatus, name: String, width: Int? = nil, fit: TextFit = TextFit()) -> String
    {
        let fraction = fraction(status)
        let filled = Int((fraction * 10).rounded(.down))
        let verb = status.status == "paused" ? "Paused" : "Downloading"
        let bar =
            " ▕" + String(repeating: "█", count: filled) + String(repeating: "░", count: 10 - filled)
            + "▏ \(Int(fraction * 100))%"
        var details: [String] = []
        if let total = status.totalSizeBytes {
            details.append(" \(Units.bytes(status.downloadedBytes ?? 0)) of \(Units.bytes(total))")
        }
        if let speed = status.bytesPerSecond, speed > 0 {
            details.append(" · \(Units.bytes(Int64(Int(saturating: speed))))/s")
            if let total = status.totalSizeBytes {
                let seconds = max(0, Int(saturating: (Double(total) - Double(status.downloadedBytes ?? 0)) / speed))
                details.append(" · \(seconds / 60):" + String(format: "%02d", seconds % 60) + " left")
            }
        }
        let name = UntrustedText.sanitize(name)
        guard let width else { return verb + " " + name + bar + details.joined() }
        let room = max(width - 1, 1)
        let shortestName = min(fit.columns(name), 16)
        while !details.isEmpty, fit.columns(verb + " " + bar + details.joined()) + shortestName > room {
            details.removeLast()
        }
        let tail = bar + details.joined()
        let nameRoom = room - fit.columns(verb + " " + tail)
        guard nameRoom >= 2 else { return fit.cut(verb + tail, to: room) }
        return verb + " " + fit.cut(name, to: nameRoom) + tail
    }
}
