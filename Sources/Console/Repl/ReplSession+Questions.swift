import Chat
import Foundation
import TerminalMarkdown

/// Reading lines and asking questions at the REPL's prompt.
///
/// A question never eats input: a line that is not one of its answers (a message, a slash command) counts as the
/// question's default and is handed back (`pendingLines`), so the loop handles it next, as if typed at the prompt.
extension ReplSession {
    /// Reads a line: with readline on a terminal, else plainly from standard input.
    func readLine(prompt: String, draft: String) async -> LineInput {
        router.setAtPrompt(true)
        defer { router.setAtPrompt(false) }
        if let editor { return await editor.read(prompt: prompt, draft: draft) }
        return await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: Swift.readLine().map(LineInput.line) ?? .endOfInput) }.start()
        }
    }

    /// The loop's next line: the oldest line a question handed back, else one read at the prompt with `given` in it.
    /// A handed-back line leaves `given` as the draft of the prompt after it. Tells the assembler whether the line
    /// came with a bracketed paste, which it takes literally.
    func nextLine(prompt: String, draft given: String) async -> LineInput {
        guard pendingLines.isEmpty else {
            let line = pendingLines.removeFirst()
            draft = given
            assembler.nextLineIsPasted = line.pasted
            return .line(line.text)
        }
        let input = await readLine(prompt: prompt, draft: given)
        assembler.nextLineIsPasted = editor?.lastLineHeldPaste ?? false
        return input
    }

    /// Gives `line`, just read at a question that does not take it, back to the loop: it is handled next, in order,
    /// as if typed at the prompt (and recorded in the history there, once).
    func handBack(_ line: String) {
        pendingLines.append((line, editor?.lastLineHeldPaste ?? false))
    }

    /// Asks `question`, showing `choices` (lower-case letters) as `[y/r/N]` with `defaultChoice` upper-case. An
    /// answer is a choice's letter or one word starting with it (`yes`, `recap`), in any case; Enter alone, Ctrl-D
    /// and Ctrl-C give the default. Any other line counts as the default too, said as "Taken as `takenAs`", and is
    /// handed back: a slash command runs next, a message is sent next.
    func choose(_ question: String, choices: [Character], defaultChoice: Character, takenAs: String = "no") async -> Character {
        let shown = choices.map { $0 == defaultChoice ? $0.uppercased() : String($0) }.joined(separator: "/")
        guard case .line(let line) = await readLine(prompt: "\(question) [\(shown)] ", draft: "") else { return defaultChoice }
        let answer = line.trimmingCharacters(in: .whitespaces)
        guard !answer.isEmpty else { return defaultChoice }
        if answer.allSatisfy(\.isLetter), let letter = answer.lowercased().first, choices.contains(letter) { return letter }
        let isCommand = answer.hasPrefix("/") && !answer.hasPrefix("//")
        output.line("Taken as \(takenAs); " + (isCommand ? "running \(UntrustedText.sanitize(answer))." : "sending your message."))
        handBack(line)
        return defaultChoice
    }

    /// Asks a yes/no question (`choose` with `[y/N]`): yes only for `y` or a word starting with it.
    func confirm(_ question: String) async -> Bool {
        await choose(question, choices: ["y", "n"], defaultChoice: "n") == "y"
    }
}
