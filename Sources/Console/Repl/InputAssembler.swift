/// Joins typed lines into one message: `"""` … `"""` blocks and lines ending in `\` continue.
struct InputAssembler: Sendable, Equatable {
    private var lines: [String] = []
    private var inBlock = false
    /// Whether the next line `add` takes came with a bracketed paste. A paste is text as it stands: its `"""` and
    /// trailing `\` neither open, close nor continue a block; the line joins a message being typed, or is the message.
    var nextLineIsPasted = false

    /// Whether a message is half typed (the prompt shows a continuation marker).
    var isContinuing: Bool { inBlock || !lines.isEmpty }

    /// The text typed so far, as a draft.
    var pending: String { lines.joined(separator: "\n") }

    /// Takes one line; returns the whole message once it is complete.
    mutating func add(_ line: String) -> String? {
        if nextLineIsPasted {
            nextLineIsPasted = false
            lines.append(line)
            return inBlock ? nil : finish()
        }
        if inBlock {
            if line.trimmingCharacters(in: .whitespaces) == "\"\"\"" {
                inBlock = false
                return finish()
            }
            lines.append(line)
            return nil
        }
        if lines.isEmpty, line.trimmingCharacters(in: .whitespaces).hasPrefix("\"\"\"") {
            let rest = String(line.trimmingCharacters(in: .whitespaces).dropFirst(3))
            inBlock = true
            if !rest.isEmpty { lines.append(rest) }
            return nil
        }
        if line.hasSuffix("\\") {
            lines.append(String(line.dropLast()))
            return nil
        }
        lines.append(line)
        return finish()
    }

    /// Drops what was typed.
    mutating func reset() {
        lines = []
        inBlock = false
        nextLineIsPasted = false
    }

    private mutating func finish() -> String {
        defer { lines = [] }
        return lines.joined(separator: "\n")
    }
}
