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

    /// Creates a preset.
    public init(name: String, systemPrompt: String? = nil, model: String? = nil, settings: [String: String] = [:]) {
        self.name = name
        self.systemPrompt = systemPrompt
        self.model = model
        self.settings = settings
    }

    /// One line for a listing: `model acme/tiny · temperature 0.2 · "You are a terse reviewer…"`.
    public var summary: String {
        var parts: [String] = []
        if let model { parts.append("model \(model)") }
        parts += settings.keys.sorted().map { "\($0) \(settings[$0]!)" }
        if let systemPrompt {
            let flat = systemPrompt.split(whereSeparator: \.isNewline).joined(separator: " ")
            parts.append("\"" + (flat.count > 60 ? flat.prefix(59) + "…" : flat) + "\"")
        }
        return parts.isEmpty ? "(empty)" : parts.joined(separator: " · ")
    }
}
