/// How llmster writes figures for people, the same on the terminal, in `ask` and in what rpc sends the editors.
///
/// Values from a server or a file may be negative, infinite or NaN: a negative time reads as 0, NaN as 0, and
/// anything beyond `Int` saturates rather than trapping.
public enum Figures {
    /// "Thought for 12.4 s" (tenths, thousands grouped: "Thought for 1,020.0 s"), or "Reasoning" when the time is unknown:
    /// what every face calls a reply's reasoning.
    public static func reasoningLabel(seconds: Double?) -> String {
        seconds.map { "Thought for " + Self.seconds($0) } ?? "Reasoning"
    }

    /// "12.4 s".
    public static func seconds(_ value: Double) -> String { decimal(value) + " s" }

    /// One decimal place, rounded half up, thousands grouped; negative values (and NaN) read as 0.0.
    public static func decimal(_ value: Double) -> String {
        let tenths = Int(saturating: (max(value, 0) * 10).rounded())
        return "\(grouped(tenths / 10)).\(tenths % 10)"
    }

    /// Thousands separated by commas: 3402 → "3,402".
    public static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return (value < 0 ? "-" : "") + result
    }

    /// `1 chat`, `5 chats`: a count with its noun, plural by an `s`.
    public static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
