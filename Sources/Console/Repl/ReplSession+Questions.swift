import Chat
import Foundation
import TerminalMarkdown

/// Reading lines and asking questions at the REPL's prompt.
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

    /// The loop's next line, read at the prompt with `given` in it. Tells the assembler whether the line came with a
    /// bracketed paste, which it takes literally.
    func nextLine(prompt: String, draft given: String) async -> LineInput {
        let input = await readLine(prompt: prompt, draft: given)
        assembler.nextLineIsPasted = editor?.lastLineHeldPaste ?? false
        return input
    }

    /// Asks a yes/no question; only `y` or `yes` is yes, and Enter alone, `n` or `no` is no. A slash command typed
    /// instead is not taken as an answer: the question counts as no and the command runs. Other text asks again.
    func confirm(_ question: String) async -> Bool {
        var prompt = question + " [y/N] "
        while case .line(let line) = await readLine(prompt: prompt, draft: "") {
            let answer = line.trimmingCharacters(in: .whitespaces)
            switch answer.lowercased() {
            case "y", "yes": return true
            case "", "n", "no": return false
            default:
                if answer.hasPrefix("/"), !answer.hasPrefix("//") {
                    output.line("Taken as no; running \(UntrustedText.sanitize(answer)).")
                    editor?.remember(answer)
                    await runCommand(answer)
                    return false
                }
                prompt = "Please answer y or n: " + question + " [y/N] "
            }
        }
        return false
    }
}
