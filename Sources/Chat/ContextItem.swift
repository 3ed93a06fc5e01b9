import Foundation
import Library

/// A piece of text sent with a message besides what was typed: a file, a fetched page, a command's output or an
/// editor's named text.
///
/// The request carries each item as a fenced block under a line naming it, before the message; the library keeps
/// the item as an attachment of the user message (`text/plain` with parameters saying where it came from), so
/// `show`, exports and backups carry it and a regenerated reply is sent the same items.
public struct ContextItem: Sendable, Equatable {
    /// Where the text came from.
    public enum Source: Sendable, Equatable {
        /// A file, by the path as given.
        case file
        /// A web page, by the URL asked for, fetched at this time.
        case page(fetchedAt: Date)
        /// A command run with `/bin/sh -c`, and how it ended (a status, or 128 + the signal number).
        case command(exitStatus: Int32)
        /// Text an editor sent under a name of its choosing (a buffer), or standard input.
        case text
    }

    /// The path, URL, command line or name the item is shown and sent under.
    public var name: String
    public var source: Source
    /// The text sent.
    public var text: String
    /// The size of the whole output when `text` is only its start (command output over the cap); nil when whole.
    public var cutFrom: Int?

    /// Creates an item.
    public init(name: String, source: Source, text: String, cutFrom: Int? = nil) {
        self.name = name
        self.source = source
        self.text = text
        self.cutFrom = cutFrom
    }

    /// The text's size in UTF-8 bytes.
    public var byteCount: Int { text.utf8.count }

    /// The context meter's estimate of the item's tokens, block and name line included.
    public var estimatedTokens: Int { ContextMeter.estimateTokens(block) }

    /// The one line a face shows instead of the text, e.g. `notes.md · 3.2 KB · ~800 tokens`.
    public var chip: String {
        var parts = [name, Self.size(byteCount), "~\(estimatedTokens) tokens"]
        if case .command(let status) = source, status != 0 { parts.append("exit status \(status)") }
        if let cutFrom { parts.append("cut from \(Self.size(cutFrom))") }
        return parts.joined(separator: " · ")
    }

    /// The line above the item's block in the request.
    public var heading: String {
        switch source {
        case .file: "File \(name):"
        case .page(let date): "Page \(name) (fetched \(Self.timestamp(date))):"
        case .command(let status):
            "Output of `\(name)` (exit status \(status)\(cutFrom.map { ", only the first \(byteCount) of \($0) bytes" } ?? "")):"
        case .text: "\(name):"
        }
    }

    /// The item as the request carries it: the heading, then the text in a fence longer than any backtick run in it.
    public var block: String {
        var longest = 0
        var run = 0
        for byte in text.utf8 {
            run = byte == UInt8(ascii: "`") ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: max(3, longest + 1))
        let body = text.hasSuffix("\n") ? text : text + "\n"
        return "\(heading)\n\(fence)\n\(body)\(fence)"
    }

    /// What the model is sent for a message with `items`: each item's block, then the message (if any) after a blank line.
    public static func input(_ items: [ContextItem], message: String) -> String {
        guard !items.isEmpty else { return message }
        return (items.map(\.block) + (message.isEmpty ? [] : [message])).joined(separator: "\n\n")
    }

    /// 950 → `950 B`, 3200 → `3.2 KB`, 1_500_000 → `1.5 MB` (decimal units, as `show` prints attachment sizes).
    public static func size(_ bytes: Int) -> String {
        if bytes < 1000 { return "\(bytes) B" }
        let (value, unit) = bytes < 1_000_000 ? (Double(bytes) / 1000, "KB") : (Double(bytes) / 1_000_000, "MB")
        return String(format: value >= 100 ? "%.0f %@" : "%.1f %@", value, unit).replacingOccurrences(
            of: ".0 ", with: " ")
    }

    private static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}

extension ContextItem {
    /// The media type the library stores the item under: `text/plain; charset=utf-8; x-llmster-context=KIND` and the
    /// source's details (`fetched`, `exit`, `cut-from`) as parameters.
    public var mimeType: String {
        var parameters = ["charset=utf-8"]
        switch source {
        case .file: parameters.append("x-llmster-context=file")
        case .page(let date): parameters += ["x-llmster-context=page", "fetched=\(Self.timestamp(date))"]
        case .command(let status): parameters += ["x-llmster-context=command", "exit=\(status)"]
        case .text: parameters.append("x-llmster-context=text")
        }
        if let cutFrom { parameters.append("cut-from=\(cutFrom)") }
        return (["text/plain"] + parameters).joined(separator: "; ")
    }

    /// The item an attachment holds; nil for an attachment that is not a context item (an image).
    public init?(attachment: Attachment) {
        let fields = attachment.mimeType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        var parameters: [String: String] = [:]
        for field in fields.dropFirst() {
            guard let equals = field.firstIndex(of: "=") else { continue }
            parameters[String(field[..<equals]).lowercased()] = String(field[field.index(after: equals)...])
        }
        guard fields.first == "text/plain", let kind = parameters["x-llmster-context"] else { return nil }
        let source: Source
        switch kind {
        case "file": source = .file
        case "page":
            let formatter = ISO8601DateFormatter()
            source = .page(
                fetchedAt: parameters["fetched"].flatMap(formatter.date(from:)) ?? Date(timeIntervalSince1970: 0))
        case "command": source = .command(exitStatus: parameters["exit"].flatMap { Int32($0) } ?? 0)
        default: source = .text
        }
        self.init(
            name: attachment.name, source: source, text: String(decoding: attachment.bytes, as: UTF8.self),
            cutFrom: parameters["cut-from"].flatMap { Int($0) })
    }
}
