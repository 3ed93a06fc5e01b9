import Chat

/// A typed line that starts with `/`, understood against the command registry.
enum SlashLine: Sendable {
    case command(SlashCommand, ArgumentParser.Parsed)
    /// An unknown name, with the nearest known one.
    case unknown(name: String, suggestion: String?)
    /// A known command with arguments it does not accept.
    case badArguments(SlashCommand, message: String)

    /// Parses `line` (which starts with `/`) against `commands`.
    static func parse(_ line: String, commands: [SlashCommand]) -> SlashLine {
        let body = line.dropFirst().drop { $0 == " " }
        let name = String(body.prefix { $0 != " " })
        let rest = body.dropFirst(name.count).trimmingCharacters(in: .whitespaces)
        guard let command = commands.first(where: { $0.name == name }) else {
            // Among names equally near, the one closest in length wins (`/modle` → `/model`, not `/models`).
            let names = commands.map(\.name).sorted { abs($0.count - name.count) < abs($1.count - name.count) }
            return .unknown(name: name, suggestion: EditDistance.nearest(to: name, in: names, maximum: 3))
        }
        if command.takesText {
            var parsed = ArgumentParser.Parsed()
            if !rest.isEmpty { parsed.positionals = [rest] }
            return .command(command, parsed)
        }
        do {
            return .command(command, try command.parser.parse(try words(rest)))
        } catch {
            return .badArguments(command, message: error.description)
        }
    }

    /// Splits arguments at spaces; single or double quotes keep spaces inside one word, and outside quotes a
    /// backslash takes the next character literally (`SSE\ notes.llmster`, as readline completes file names).
    static func words(_ text: String) throws(UsageError) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var inWord = false
        var escaped = false
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
            } else if quote == nil, character == "\\" {
                escaped = true
                inWord = true
            } else if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
                inWord = true
            } else if character == " " || character == "\t" {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if quote != nil { throw UsageError("a quote is not closed") }
        if escaped { current.append("\\") }
        if inWord { words.append(current) }
        return words
    }
}
