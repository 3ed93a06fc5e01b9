/// The hostile server behaviours an adversarial pass found, kept as scenarios so they stay found: a model list full
/// of terminal control sequences, a `chat.end` that drops what streamed, and stats no 64-bit integer holds.
///
/// Directives (with the others in `Simulator.directiveHelp`):
/// `final-drop=answer|reasoning|tools` (repeatable) makes `chat.end` carry an empty answer, no reasoning or no tool
/// calls, whatever streamed; `overflow-stats` gives `chat.end`'s `stats.input_tokens` a value beyond Int64.
/// `SimulatorOptions.hostileModels` adds ``HostileScenarios/modelFixtures`` to the catalogue.
public struct HostileScenarios: Sendable, Equatable {
    /// What `chat.end` leaves out of what streamed.
    enum Dropped: String, Sendable, CaseIterable {
        /// The answer's text becomes empty.
        case answer
        /// The reasoning items are left out.
        case reasoning
        /// The tool call items are left out.
        case tools
    }

    /// What `final-drop` directives asked to drop.
    var dropped: Set<Dropped> = []
    /// `overflow-stats`: `stats.input_tokens` is 99999999999999999999 (beyond Int64 and UInt64).
    var overflowStats = false

    /// Whether any hostile directive is in force (else `chat.end` is written as usual).
    var isActive: Bool { !dropped.isEmpty || overflowStats }

    /// Applies the directive `name` (`value` after `=`); false when it is not one of these.
    mutating func apply(name: String, value: String?) -> Bool {
        switch name {
        case "final-drop":
            guard let value, let part = Dropped(rawValue: value) else { return false }
            dropped.insert(part)
        case "overflow-stats":
            guard value == nil else { return false }
            overflowStats = true
        default:
            return false
        }
        return true
    }

    /// The `chat.end` event's JSON for `result` with the hostile directives applied.
    func chatEnd(_ result: [String: Any]) -> String {
        var result = result
        if let output = result["output"] as? [[String: Any]] {
            result["output"] = output.compactMap { item -> [String: Any]? in
                switch item["type"] as? String {
                case "message" where dropped.contains(.answer):
                    var emptied = item
                    emptied["content"] = ""
                    return emptied
                case "reasoning" where dropped.contains(.reasoning): return nil
                case "tool_call", "invalid_tool_call": return dropped.contains(.tools) ? nil : item
                default: return item
                }
            }
        }
        let json = JSON.encode(["type": "chat.end", "result": result])
        guard overflowStats, let range = json.range(of: #""input_tokens":[0-9]+"#, options: .regularExpression) else {
            return json
        }
        return json.replacingCharacters(in: range, with: #""input_tokens":99999999999999999999"#)
    }

    /// The key of the hostile catalogue's chat model: OSC 52 (clipboard), OSC 0 (title), the alternate screen and a
    /// clear, an 8-bit CSI, a C1 control and a right-to-left override, behind the plain prefix `evil/`.
    public static let modelKey =
        "evil/\u{1B}]52;c;cHduZWQ=\u{07}\u{1B}]0;pwned\u{07}\u{1B}[?1049h\u{1B}[2J\u{9B}31m\u{85}\u{202E}model"

    /// Models whose key, display name, publisher and description carry terminal control sequences.
    static let modelFixtures: [String] = [
        JSON.encode(
            [
                "type": "llm",
                "publisher": "evil\u{1B}[5m",
                "key": modelKey,
                "display_name": "Evil \u{1B}]52;c;cHduZWQ=\u{07}\u{9B}2J\u{202E}Model",
                "architecture": "llama\u{1B}[31m",
                "quantization": ["name": "Q4\u{1B}[2J", "bits_per_weight": 4],
                "size_bytes": 1_000_000,
                "params_string": "1B\u{07}",
                "max_context_length": 8192,
                "format": "gguf",
                "capabilities": ["vision": false, "trained_for_tool_use": false],
                "description": "Sets the clipboard \u{1B}]52;c;cHduZWQ=\u{07} and the title \u{1B}]0;pwned\u{07}."
            ] as [String: Any])
    ]
}
