import SystemSupport

/// The one-line pieces shown around an answer: stage line, reasoning tail and summary, tool calls, stats.
///
/// Pure functions of their inputs; every text that came from the server or the model is sanitised here.
public struct ReplyPresenter: Sendable {
    /// Characters of reasoning the live tail looks at.
    public static let reasoningWindow = 4096

    let level: StyleLevel
    let unicode: Bool
    /// Columns available; lines are cut to `width − 1`.
    public var width: Int

    /// Creates a presenter for `capabilities`.
    public init(capabilities: TerminalCapabilities) {
        level = capabilities.styleLevel
        unicode = capabilities.isUTF8
        width = capabilities.width
    }

    private var dim: TextStyle { TextStyle(dim: true) }

    /// "Loading acme/thinker ▕█████░░░░░▏ 45% · 3.2 s", "Processing prompt 80% · 1.1 s" or "Waiting · 0.4 s".
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
        }
        return dim.apply(fit(text + " · " + Self.seconds(elapsedSeconds)), at: level)
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
        let wrapper = LineWrapper(level: .plain, hyperlinks: false)
        var rows: [String] = []
        for line in lines.suffix(lineCount) {
            rows += wrapper.wrap([StyledRun(text: String(line), style: .plain)], width: width - 1).map(\.text)
        }
        return rows.suffix(lineCount).map { dim.apply($0, at: level) }
    }

    /// "▸ Thought for 12.4 s · 3,402 chars", dim.
    public func reasoningSummary(seconds: Double, characterCount: Int) -> String {
        dim.apply((unicode ? "▸" : ">") + " " + Self.reasoningLabel(seconds: seconds) + " · "
                  + Self.grouped(characterCount) + " chars", at: level)
    }

    /// "Thought for 12.4 s", or "Reasoning" when the time is unknown (`Figures.reasoningLabel`).
    public static func reasoningLabel(seconds: Double?) -> String { Figures.reasoningLabel(seconds: seconds) }

    /// "↻ The server's final answer differs from the streamed text:", dim; committed above a rewritten answer.
    public func replacementNote() -> String {
        dim.apply(fit((unicode ? "↻" : "*") + " The server's final answer differs from the streamed text:"), at: level)
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
            outcomeStyle = TextStyle(color: 32)
        case .failed(let message):
            outcome = (unicode ? "✗ " : "failed: ") + UntrustedText.sanitize(message).replacing("\n", with: " ")
            outcomeStyle = TextStyle(color: 31)
        }
        let ellipsis = unicode ? "…" : "..."
        let head = (unicode ? "⚙ " : "* ") + UntrustedText.sanitize(call.name)
        let arguments = UntrustedText.sanitize(call.arguments).replacing("\n", with: " ")
        let room = width - 1 - DisplayWidth.of(head) - DisplayWidth.of(outcome) - DisplayWidth.of(ellipsis) - 3
        let shownArguments = arguments.isEmpty ? "" : " " + truncate(arguments, to: max(room, 0), ellipsis: ellipsis)
        return TextStyle(bold: true).apply(head, at: level) + dim.apply(shownArguments + " " + ellipsis, at: level)
            + " " + outcomeStyle.apply(outcome, at: level)
    }

    /// "412 tokens · 38.2 tok/s · first token 0.9 s · model load 1.3 s" (the load only when this reply loaded it; no
    /// token figures for a reply without tokens), dim, followed by a marked "incomplete" when the reply did not
    /// complete; empty when there are neither stats nor a mark.
    public func statsLine(_ stats: ReplyStats?, outcome: ReplyOutcome) -> String {
        var parts: [String] = []
        if let stats {
            // A reply that produced nothing (a server error) has no speed to show.
            if stats.tokens > 0 {
                parts.append(Self.grouped(stats.tokens) + (stats.tokens == 1 ? " token" : " tokens"))
                parts.append(Self.decimal(stats.tokensPerSecond) + " tok/s")
                if let first = stats.timeToFirstToken { parts.append("first token " + Self.seconds(first)) }
            }
            if let load = stats.modelLoadTime { parts.append("model load " + Self.seconds(load)) }
        }
        let figures = fit(parts.joined(separator: " · "))
        var line = dim.apply(figures, at: level)
        let mark: String?
        switch outcome {
        case .complete: mark = nil
        case .cancelled: mark = "incomplete: cancelled"
        case .shownInPart: mark = "shown in part: cancelled; the whole reply is saved"
        case .failed(let message): mark = "incomplete: " + UntrustedText.sanitize(message).replacing("\n", with: " ")
        }
        if let mark {
            let separator = parts.isEmpty ? "" : " · "
            let room = max(width - 1 - DisplayWidth.of(figures) - DisplayWidth.of(separator), 1)
            let warning = truncate((unicode ? "⚠ " : "! ") + mark, to: room, ellipsis: unicode ? "…" : "...")
            line += (parts.isEmpty ? "" : dim.apply(separator, at: level)) + TextStyle(bold: true, color: 33).apply(warning, at: level)
        }
        return line
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

    private func truncate(_ text: String, to columns: Int, ellipsis: String) -> String {
        guard DisplayWidth.of(text) > columns else { return text }
        var result = ""
        var used = 0
        let limit = columns - DisplayWidth.of(ellipsis)
        for character in text {
            let characterWidth = DisplayWidth.of(character)
            if used + characterWidth > limit { break }
            result.append(character)
            used += characterWidth
        }
        return result + ellipsis
    }

    /// Cuts an unstyled line to the prose width.
    private func fit(_ text: String) -> String {
        truncate(text, to: max(width - 1, 1), ellipsis: unicode ? "…" : "...")
    }
}
