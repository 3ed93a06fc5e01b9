import Foundation

/// A named system prompt with an optional model and settings (`preset.NAME.system = …` in the config): a "role".
public struct Preset: Sendable, Equatable {
    /// The name after `preset.`: ASCII letters, digits, `-` and `_`.
    public var name: String
    /// The system prompt it gives a conversation.
    public var systemPrompt: String?
    /// A model key or instance id.
    public var model: String?
    /// Conversation settings by their `/set` key (`temperature`, `top_p` …), as written; checked when applied.
    public var settings: [String: String] = [:]
    /// The message to send instead of the one typed, with `{{input}}` and `{{stdin}}` slots (see ``filled(input:stdin:)``).
    public var template: String?

    /// Creates a preset.
    public init(
        name: String, systemPrompt: String? = nil, model: String? = nil, settings: [String: String] = [:],
        template: String? = nil
    ) {
        self.name = name
        self.systemPrompt = systemPrompt
        self.model = model
        self.settings = settings
        self.template = template
    }

    /// Whether no line of the configuration gives the preset anything.
    var isEmpty: Bool { systemPrompt == nil && model == nil && settings.isEmpty && template == nil }

    /// The slots a template may hold.
    public static let slots = ["input", "stdin"]

    /// The names inside `{{…}}` in `template` that are not ``slots``, in order (spaces inside the braces ignored).
    public static func unknownSlots(in template: String) -> [String] {
        placeholders(in: template).map(\.name).filter { !slots.contains($0) }
    }

    /// Each `{{NAME}}` of `template`: its range and NAME trimmed of spaces.
    private static func placeholders(in template: String) -> [(range: Range<String.Index>, name: String)] {
        var found: [(Range<String.Index>, String)] = []
        var rest = template.startIndex..<template.endIndex
        while let open = template.range(of: "{{", range: rest),
            let close = template.range(of: "}}", range: open.upperBound..<template.endIndex)
        {
            found.append(
                (
                    open.lowerBound..<close.upperBound,
                    template[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
                ))
            rest = close.upperBound..<template.endIndex
        }
        return found
    }

    /// Whether the template has a `{{NAME}}` slot.
    public func hasSlot(_ name: String) -> Bool {
        template.map { Self.placeholders(in: $0).contains { $0.name == name } } ?? false
    }

    /// The message to send for `input` (what was typed or given as arguments) and `stdin` (piped standard input, nil
    /// when there is none): the template with `{{input}}` and `{{stdin}}` filled in.
    ///
    /// Without a `{{stdin}}` slot, piped input joins the input after a blank line, as it does without a template; input
    /// with no `{{input}}` slot to go in is added after the filled template and a blank line, so nothing is lost.
    /// Without a template, the input (and piped input) as they are.
    public func filled(input: String, stdin: String?) -> String {
        let joined = [input, stdin ?? ""].filter { !$0.isEmpty }.joined(separator: "\n\n")
        guard let template else { return joined }
        let message = hasSlot("stdin") ? input : joined
        var text = ""
        var position = template.startIndex
        for placeholder in Self.placeholders(in: template) {
            text += template[position..<placeholder.range.lowerBound]
            text += placeholder.name == "stdin" ? (stdin ?? "") : message
            position = placeholder.range.upperBound
        }
        text += template[position...]
        if !hasSlot("input"), !message.isEmpty { text += "\n\n" + message }
        return text
    }

    /// One line for a listing: `model acme/tiny · temperature 0.2 · "You are a terse reviewer…"`.
    public var summary: String {
        var parts: [String] = []
        if let model { parts.append("model \(model)") }
        if let template {
            let slots = Self.placeholders(in: template).map { "{{\($0.name)}}" }
            parts.append(
                "template " + (slots.isEmpty ? "(no slots)" : Array(Set(slots)).sorted().joined(separator: " ")))
        }
        parts += settings.keys.sorted().map { "\($0) \(settings[$0]!)" }
        if let systemPrompt {
            let flat = systemPrompt.split(whereSeparator: \.isNewline).joined(separator: " ")
            parts.append("\"" + (flat.count > 60 ? flat.prefix(59) + "…" : flat) + "\"")
        }
        return parts.isEmpty ? "(empty)" : parts.joined(separator: " · ")
    }
}
