import Markdown
import SystemSupport

/// The one-line pieces shown around an answer: stage line, reasoning tail and summary, tool calls, stats.
///
/// Pure functions of their inputs; every text that came from the server or the model is sanitised here.
public struct ReplyPresenter: Sendable {
    /// Characters of reasoning the live tail looks at.
    public static let reasoningWindow = 4096

    let level: StyleLevel
    /// How the terminal counts columns (`width_mode`) and which ellipsis it shows: the live rows are drawn with
    /// autowrap off, so a row measured narrower than the terminal draws it loses its end.
    let fit: TextFit
    /// UTF-8 glyphs (`▸`, `✓`, the bar), or their ASCII stand-ins.
    var unicode: Bool { fit.isUTF8 }
    /// The colours of outcomes (`MarkdownTheme.succeeded`, `failed`, `unfinished`) for the terminal's background.
    let theme: MarkdownTheme
    /// Columns available; lines are cut to `width − 1`.
    public var width: Int

    /// Creates a presenter for `capabilities`.
    public init(capabilities: TerminalCapabilities) {
        level = capabilities.styleLevel
        fit = capabilities.textFit
        theme = .standard(for: capabilities.background, depth: capabilities.colorDepth)
        width = capabilities.width
    }

    private var dim: TextStyle { TextStyle(dim: true) }

    /// "Loading acme/thinker ▕█████░░░░░▏ 45% · 3.2 s", "Processing prompt 80% · 1.1 s", "⚙ Preparing a call to NAME · 9.0 s"
    /// (the model writes its arguments, which may take long without an event) or "Waiting · 0.4 s".
    public func stageLine(_ stage: ReplyStage, elapsedSeconds: Double) -> String {
        var text: String
        switch stage {
        case .waiting:
            text = "Waiting"
        case .loadingModel(let model, let progress):
            text = "Loading " + UntrustedText.sanitize(model)
            if let progress { text += " " + progressBar(progress) + " " + percent(progress) }
        case .processingPrompt(let progress):
            text = "Processing prompt"
            if let progress { text += " " + percent(progress) }
        case .runningTool(let tool, let since):
            return toolLine(
                "Running " + UntrustedText.sanitize(tool).replacing("\n", with: " "), seconds: elapsedSeconds - since)
        case .preparingTool(let tool, let since):
            let name = UntrustedText.sanitize(tool).replacing("\n", with: " ")
            return toolLine(
                name.isEmpty ? "Preparing a tool call" : "Preparing a call to " + name, seconds: elapsedSeconds - since)
        }
        return dim.apply(fitted(text + " · " + Self.seconds(elapsedSeconds)), at: level)
    }

    /// "⚙ Running NAME · 3.2 s": a tool call's line, timed from its own start.
    private func toolLine(_ text: String, seconds: Double) -> String {
        dim.apply(fitted((unicode ? "⚙ " : "* ") + text + " · " + Self.seconds(max(seconds, 0))), at: level)
    }

    /// A ten-cell bar: `▕█████░░░░░▏`, or `[#####.....]` without UTF-8.
    public func progressBar(_ progress: Double) -> String {
        let filled = Int((min(max(progress, 0), 1) * 10).rounded(.down))
        return unicode
            ? "▕" + String(repeating: "█", count: filled) + String(repeating: "░", count: 10 - filled) + "▏"
            : "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: 10 - filled) + "]"
    }

    private func percent(_ progress: Double) -> String { "\(Int((min(max(progress, 0), 1) * 100).rounded(.down)))%" }

    /// The dim last `lineCount` rows of the reasoning's latest `reasoningWindow` characters, wrapped to the width.
    public func reasoningTail(_ reasoning: String, lineCount: Int) -> [String] {
        let window = String(reasoning.suffix(Self.reasoningWindow))
        let lines = UntrustedText.sanitize(window).split(separator: "\n", omittingEmptySubsequences: true)
        let wrapper = LineWrapper(level: .plain, hyperlinks: false, widthModel: fit.widthModel)
        var rows: [String] = []
        for line in lines.suffix(lineCount) {
            rows += wrapper.wrap([StyledRun(text: String(line), style: .plain)], width: width - 1).map(\.text)
        }
        return rows.suffix(lineCount).map { dim.apply($0, at: level) }
    }

    /// "▸ Thought for 12.4 s · 3,402 chars", dim.
    public func reasoningSummary(seconds: Double, characterCount: Int) -> String {
        dim.apply(
            (unicode ? "▸" : ">") + " " + Self.reasoningLabel(seconds: seconds) + " · "
                + Self.grouped(characterCount) + " chars", at: level)
    }

    /// "Thought for 12.4 s", or "Reasoning" when the time is unknown (`Figures.reasoningLabel`).
    public static func reasoningLabel(seconds: Double?) -> String { Figures.reasoningLabel(seconds: seconds) }

    /// "↻ The server's final answer differs from the streamed text:", dim; committed above a rewritten answer.
    public func replacementNote() -> String {
        dim.apply(
            fitted((unicode ? "↻" : "*") + " The server's final answer differs from the streamed text:"), at: level)
    }

    /// `⚙ search_docs {query: "sse"} … ✓ 1.2 KB` or `⚙ open_browser {} … ✗ Cannot find tool open_browser`.
    ///
    /// The arguments are shortened so the line fits; a long failure message may still wrap (the line is
    /// committed, never redrawn).
    public func toolCallLine(_ call: ToolCallSummary) -> String {
        let outcome: String
        let outcomeStyle: TextStyle
        switch call.result {
        case .succeeded(let bytes):
            outcome = (unicode ? "✓ " : "ok ") + Self.bytes(bytes)
            outcomeStyle = theme.succeeded
        case .failed(let message):
            outcome = (unicode ? "✗ " : "failed: ") + UntrustedText.sanitize(message).replacing("\n", with: " ")
            outcomeStyle = theme.failed
        case .unfinished:
            outcome = "did not finish"
            outcomeStyle = theme.unfinished
        }
        let ellipsis = fit.ellipsis
        let head = (unicode ? "⚙ " : "* ") + UntrustedText.sanitize(call.name)
        let arguments = UntrustedText.sanitize(call.arguments).replacing("\n", with: " ")
        let room = width - 1 - columns(head) - columns(outcome) - columns(ellipsis) - 3
        let shownArguments = arguments.isEmpty ? "" : " " + fit.cut(arguments, to: max(room, 0))
        return TextStyle(bold: true).apply(head, at: level) + dim.apply(shownArguments + " " + ellipsis, at: level)
            + " " + outcomeStyle.apply(outcome, at: level)
    }

    /// "412 tokens · 38.2 tok/s · first token 0.9 s · model load 1.3 s" (the load only when this reply loaded it; no
    /// token figures for a reply without tokens), dim, followed by a marked "incomplete" when the reply did not
    /// complete; empty when there are neither stats nor a mark.
    public func statsLine(_ stats: ReplyStats?, outcome: ReplyOutcome) -> String {
        let (parts, figures) = statsFigures(stats)
        var line = dim.apply(figures, at: level)
        if let (warning, _) = outcomeMark(outcome, after: parts, figures: figures) {
            line +=
                (parts.isEmpty ? "" : dim.apply(" · ", at: level))
                + TextStyle(bold: true, color: theme.unfinished.color).apply(warning, at: level)
        }
        return line
    }

    /// Whether `statsLine(stats, outcome:)` shows the whole of the outcome's mark, its reason not cut to the width;
    /// a face that says the reason again only when it was cut reports a failure once.
    public func showsWholeMark(_ stats: ReplyStats?, outcome: ReplyOutcome) -> Bool {
        let (parts, figures) = statsFigures(stats)
        return outcomeMark(outcome, after: parts, figures: figures)?.whole ?? true
    }

    private func statsFigures(_ stats: ReplyStats?) -> (parts: [String], figures: String) {
        var parts: [String] = []
        if let stats {
            // A reply that produced nothing (a server error) has no speed to show.
            if stats.tokens > 0 {
                parts.append(Self.grouped(stats.tokens) + (stats.tokens == 1 ? " token" : " tokens"))
                if let rate = stats.tokensPerSecond { parts.append(Self.decimal(rate) + " tok/s") }
                if let first = stats.timeToFirstToken { parts.append("first token " + Self.seconds(first)) }
            }
            if let load = stats.modelLoadTime { parts.append("model load " + Self.seconds(load)) }
        }
        // Figures that do not fit are left out whole from the end: a number cut in half would read as another.
        while parts.count > 1, columns(parts.joined(separator: " · ")) > max(width - 1, 1) { parts.removeLast() }
        return (parts, fitted(parts.joined(separator: " · ")))
    }

    /// "⚠ incomplete: REASON", cut to what is left of the row after `figures`, and whether it is whole; nil when complete.
    private func outcomeMark(_ outcome: ReplyOutcome, after parts: [String], figures: String) -> (
        text: String, whole: Bool
    )? {
        let mark: String
        switch outcome {
        case .complete: return nil
        case .cancelled: mark = "incomplete: cancelled"
        case .shownInPart: mark = "shown in part: cancelled; the whole reply is saved"
        case .failed(let message): mark = "incomplete: " + UntrustedText.sanitize(message).replacing("\n", with: " ")
        case .error(let message): mark = "error: " + UntrustedText.sanitize(message).replacing("\n", with: " ")
        }
        let separator = parts.isEmpty ? "" : " · "
        let room = max(width - 1 - columns(figures) - columns(separator), 1)
        let full = (unicode ? "⚠ " : "! ") + mark
        let text = fit.cut(full, to: room)
        return (text, text == full)
    }

    // MARK: Formatting

    /// "12.4 s" (`Figures.seconds`).
    static func seconds(_ value: Double) -> String { Figures.seconds(value) }

    /// One decimal place, rounded half up (`Figures.decimal`).
    static func decimal(_ value: Double) -> String { Figures.decimal(value) }

    /// Thousands separated by commas (`Figures.grouped`).
    static func grouped(_ value: Int) -> String { Figures.grouped(value) }

    /// "512 B", "1.2 KB", "3.4 MB" (powers of 1,000).
    static func bytes(_ count: Int) -> String {
        if count < 1000 { return "\(count) B" }
        if count < 1_000_000 { return decimal(Double(count) / 1000) + " KB" }
        return decimal(Double(count) / 1_000_000) + " MB"
    }

    /// The columns `text` takes on this terminal.
    private func columns(_ text: String) -> Int { fit.columns(text) }

    /// Cuts an unstyled line to the prose width.
    private func fitted(_ text: String) -> String { fit.cut(text, to: max(width - 1, 1)) }
}
