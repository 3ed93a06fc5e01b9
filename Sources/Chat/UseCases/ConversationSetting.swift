import Library

/// A conversation setting a user may change (`/set KEY VALUE`, `conversations/setSettings`), with its checks.
public enum ConversationSetting: String, CaseIterable, Sendable {
    case temperature
    case topP = "top_p"
    case topK = "top_k"
    case minP = "min_p"
    case repeatPenalty = "repeat_penalty"
    case maxOutputTokens = "max_output_tokens"
    case reasoning
    case contextLength = "context_length"

    /// A value as a face received it.
    public enum Value: Sendable, Equatable {
        /// Back to the model's default (`default`, `none`, `-`, or JSON null).
        case clear
        case number(Double)
        case text(String)

        /// The value a user typed: the clearing words, else text (numbers are read from text when a setting wants one).
        public init(typed: String) {
            self = ["default", "none", "-"].contains(typed) ? .clear : .text(typed)
        }
    }

    /// The setting named `name` (as `/set` and the protocol spell it), else `SettingError.unknownKey`.
    public static func named(_ name: String) throws(SettingError) -> ConversationSetting {
        guard let setting = ConversationSetting(rawValue: name) else {
            throw .unknownKey(name, known: allCases.map(\.rawValue))
        }
        return setting
    }

    /// Applies `value` to `settings` after checking it; `reasoningOptions` are the effective model's allowed values
    /// (`Model.reasoningOptions(in:)`; nil: any value, for the server to decide).
    public func apply(
        _ value: Value, to settings: inout ConversationSettings, model: String?, reasoningOptions: [String]?
    ) throws(SettingError) {
        switch self {
        // The ranges `chat.md` documents; repeat_penalty has none documented (1 is no penalty).
        case .temperature: settings.temperature = try number(value, 0...1)
        case .topP: settings.topP = try number(value, 0...1)
        case .minP: settings.minP = try number(value, 0...1)
        case .repeatPenalty: settings.repeatPenalty = try number(value, 0...10)
        case .topK: settings.topK = try count(value)
        case .maxOutputTokens: settings.maxOutputTokens = try count(value)
        case .contextLength: settings.contextLength = try count(value)
        case .reasoning:
            switch value {
            case .clear: settings.reasoning = nil
            case .text(let text) where reasoningOptions?.contains(text) ?? !text.isEmpty: settings.reasoning = text
            default: throw .reasoningNotOffered(model: model, allowed: reasoningOptions ?? [])
            }
        }
    }

    /// The setting's current value as text, nil when it is the model's default.
    public func value(in settings: ConversationSettings) -> String? {
        switch self {
        case .temperature: settings.temperature.map(Self.format)
        case .topP: settings.topP.map(Self.format)
        case .minP: settings.minP.map(Self.format)
        case .repeatPenalty: settings.repeatPenalty.map(Self.format)
        case .topK: settings.topK.map(String.init)
        case .maxOutputTokens: settings.maxOutputTokens.map(String.init)
        case .contextLength: settings.contextLength.map(String.init)
        case .reasoning: settings.reasoning
        }
    }

    private func number(_ value: Value, _ range: ClosedRange<Double>) throws(SettingError) -> Double? {
        let number: Double?
        switch value {
        case .clear: return nil
        case .number(let given): number = given
        case .text(let text): number = Double(text)
        }
        guard let number, range.contains(number) else { throw .outOfRange(rawValue, range) }
        return number
    }

    private func count(_ value: Value) throws(SettingError) -> Int? {
        let count: Int?
        switch value {
        case .clear: return nil
        case .number(let given): count = given == given.rounded() && abs(given) < 1e15 ? Int(given) : nil
        case .text(let text): count = Int(text)
        }
        guard let count, count > 0 else { throw .notPositive(rawValue) }
        return count
    }

    private static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }
}

/// Why a setting was refused, with what would be accepted.
public enum SettingError: Error, Equatable, Sendable, CustomStringConvertible {
    case unknownKey(String, known: [String])
    case outOfRange(String, ClosedRange<Double>)
    case notPositive(String)
    /// `model` (nil when no model applies) offers only `allowed` (empty: no reasoning setting at all).
    case reasoningNotOffered(model: String?, allowed: [String])

    public var description: String {
        switch self {
        case .unknownKey(let key, let known):
            "unknown setting '\(key)'; one of " + known.joined(separator: ", ")
        case .outOfRange(let key, let range):
            "\(key) takes a number from \(range.lowerBound) to \(range.upperBound), or 'default'"
        case .notPositive(let key):
            "\(key) takes a positive whole number, or 'default'"
        case .reasoningNotOffered(let model, let allowed):
            allowed.isEmpty
                ? "\(model ?? "this model") has no reasoning options"
                : "reasoning takes one of " + allowed.joined(separator: ", ")
        }
    }
}
