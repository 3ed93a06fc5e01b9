import Foundation

/// The deterministic texts the simulator answers with.
package enum ScriptedReply {
    /// The answer to one user input, by the rules `echo:` > `recall` > `large=N` > default.
    ///
    /// `firstInput` is the first user input of the chain this turn continues (nil for a new chain).
    static func answer(to input: String, firstInput: String?, images: Int, faults: Faults) -> String {
        var text: String
        if let range = input.range(of: "echo:") {
            var echoed = input[range.upperBound...]
            if echoed.first == " " { echoed = echoed.dropFirst() }
            text = String(echoed)
        } else if mentionsRecall(input) {
            text = firstInput.map { "Earlier you said: \"\($0)\"" } ?? "Nothing earlier in this conversation."
        } else if let size = faults.large {
            text = largeText(bytes: size, prose: faults.prose)
        } else {
            text = faults.demo ? demo(input) : standard(input)
            if images > 0 {
                text = "I can see \(images) image\(images == 1 ? "" : "s") in your message.\n\n" + text
            }
        }
        if faults.escape { text = escapeSample + "\n\n" + text }
        return text
    }

    /// The reasoning shown before an answer.
    static func reasoning(for input: String, faults: Faults) -> String {
        var text =
            "The user wrote \"\(input.prefix(80))\". I should quote it, then give a short paragraph, a list and a code block. Keep it brief and friendly."
        if faults.tools { text += " The docs might help: I will search them for SSE first." }
        if faults.escape { text += " " + escapeSample }
        if let size = faults.largeReasoning { text += largeReasoning(bytes: size - text.utf8.count) }
        return text
    }

    /// Terminal control sequences a client must neutralise: clear screen, OSC 52 clipboard write, OSC 0 title, BEL, 8-bit CSI.
    static let escapeSample =
        "Danger zone: \u{1B}[2J cleared? \u{1B}]52;c;cHduZWQ=\u{07} clipboard? \u{1B}]0;pwned title\u{07} bell \u{07} and C1 \u{9B}31mred\u{9B}0m."

    /// The first message segment when the `tools` scenario runs.
    static let toolPreamble = "Let me look that up in the docs first.\n\n"

    /// The output of the simulated `search_docs` tool, about 1.2 KB.
    static let toolOutput: String = {
        let line =
            "Server-Sent Events (SSE): each event is `event:` and `data:` lines ended by a blank line; comments start with a colon.\n"
        return "Found 3 results for \"sse\":\n" + String(repeating: line, count: 10)
    }()

    private static func mentionsRecall(_ input: String) -> Bool {
        input.lowercased().split(whereSeparator: { !$0.isLetter }).contains("recall")
    }

    /// The `--demo` answer: the blocks the message names (a table, code, a list, a quote), or the standard answer
    /// with a word on what to ask for.
    private static func demo(_ input: String) -> String {
        let words = Set(input.lowercased().split { !$0.isLetter }.map(String.init))
        var sections: [String] = []
        if !words.isDisjoint(with: ["table", "tables", "compare", "comparison"]) {
            sections.append(
                """
                | Model | Size | Context | Good at |
                |:------|-----:|--------:|---------|
                | acme/tiny-1b | 812 MB | 32k | quick replies |
                | acme/thinker-8b | 4.92 GB | 128k | **reasoning** |
                | acme/vision-7b | 4.3 GB | 64k | reading *images* |
                """)
        }
        if !words.isDisjoint(with: ["code", "function", "program", "script", "python", "swift", "example"]) {
            sections.append(
                """
                ```python
                def fibonacci(n: int) -> list[int]:
                    \"\"\"The first n Fibonacci numbers.\"\"\"
                    numbers = [0, 1]
                    while len(numbers) < n:
                        numbers.append(numbers[-1] + numbers[-2])
                    return numbers[:n]
                ```
                """)
        }
        if !words.isDisjoint(with: ["list", "steps", "how"]) {
            sections.append(
                "1. Load a model with `/model`.\n2. Ask something.\n3. Read the answer as it streams:\n   - **bold** and *emphasis*\n   - `code spans` and [links](https://lmstudio.ai)"
            )
        }
        if !words.isDisjoint(with: ["quote", "note", "warning"]) {
            sections.append(
                "> [!NOTE]\n> This is the simulator that `--demo` starts: it answers from a script, not a model.")
        }
        guard !sections.isEmpty else {
            return standard(input)
                + "\n\nAsk for a *table*, some *code*, a *list*, a *long* answer, a model that *thinks* or one that *searches* (a tool call) to see how each is drawn."
        }
        return "Here is what you asked for (*\(input.prefix(80))*):\n\n" + sections.joined(separator: "\n\n")
    }

    private static func standard(_ input: String) -> String {
        let words = input.split(whereSeparator: \.isWhitespace).count
        return """
            You said: *\(input)*

            This is a scripted reply from the LM Studio simulator. It quotes your message \
            so tests can find it, and carries a little **Markdown** to render.

            - your message has \(input.count) characters
            - it has \(words) word\(words == 1 ? "" : "s")
            - the same input always gets the same reply

            ```swift
            let words = \(words)
            print("You said \\(words) words")
            ```
            """
    }

    /// The text a `large=N` directive answers with (`prose` for `large=N,prose`); the benchmark renders it too.
    package static func largeText(bytes: Int, prose: Bool) -> String {
        prose ? self.prose(bytes: bytes) : large(bytes: bytes)
    }

    /// Paragraphs of at least `bytes` UTF-8 bytes, with emphasis, code spans and links, and nothing else.
    private static func prose(bytes: Int) -> String {
        var text = ""
        var paragraph = 1
        while text.utf8.count < bytes {
            text += """
                Paragraph \(paragraph) has *emphasis*, **strong text**, `inline code` and a [link](https://lmstudio.ai/docs/\(paragraph)). \
                It goes on for a while, as answers do, with another `value` and a **second point** worth making \
                before it ends with a [second link](https://lmstudio.ai/models) and a plain sentence.


                """
            paragraph += 1
        }
        return text
    }

    /// Mixed Markdown of at least `bytes` UTF-8 bytes.
    private static func large(bytes: Int) -> String {
        var text = ""
        var section = 1
        while text.utf8.count < bytes {
            text += """
                ## Section \(section)

                Paragraph \(section) has *emphasis*, **strong text**, `inline code` and a [link](https://lmstudio.ai/docs/\(section)). \
                Wide characters too: 日本語 and emoji 🙂.

                1. first item of \(section)
                2. second item with `code`
                   - nested bullet

                | column | value |
                |---|---|
                | section | \(section) |

                ```python
                def section_\(section)():
                    return \(section) * 2
                ```

                > A quote closing section \(section).


                """
            section += 1
        }
        return text
    }
}
