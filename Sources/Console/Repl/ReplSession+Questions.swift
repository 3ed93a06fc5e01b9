import Chat
import Foundation
import Markdown
import SystemSupport
import TerminalMarkdown

/// Reading lines and asking questions at the REPL's prompt.
///
/// A question never eats input: a line typed at it that is not one of its answers (a message, a slash command) counts
/// as the question's default and is handed back (`pendingLines`), so the loop handles it next, as if typed at the
/// prompt; one typed before the question appeared is handed back without answering it.
extension ReplSession {
    /// Reads a line: with readline on a terminal, else plainly from standard input.
    ///
    /// SIGTERM or SIGHUP at any read ends the REPL (`exitStatus`), also at a question, whose default it then answers.
    func readLine(prompt: String, draft: String) async -> LineInput {
        router.setAtPrompt(true)
        defer { router.setAtPrompt(false) }
        guard let editor else {
            return await BlockingThread.run("llmster-read-line") { Swift.readLine().map(LineInput.line) ?? .endOfInput }
        }
        let input = await editor.read(prompt: prompt, draft: draft)
        if case .terminated(_, let signal) = input, exitStatus == nil {
            exitStatus = SignalTrap.exitStatus(for: signal)
        }
        return input
    }

    /// The loop's next line: the oldest line a question handed back, else one read at the prompt with `given` in it.
    /// A line typed at the question goes before `given`, which waits for the prompt after it; one typed ahead of the
    /// question waits behind `given` (a message not sent, back in the line, comes first, as keys typed ahead do).
    /// Tells the assembler whether the line came with a bracketed paste, which it takes literally.
    func nextLine(prompt: String, draft given: String) async -> LineInput {
        if let first = pendingLines.first, !(first.typedAhead && !given.isEmpty) {
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
        pendingLines.append((line, editor?.lastLineHeldPaste ?? false, readAheadOfQuestion))
    }

    /// Whether the line just read was typed before the question that read it appeared.
    var readAheadOfQuestion: Bool { editor?.lastLineWasTypedAhead.withLock { $0 } ?? false }

    /// Asks `question`, showing `choices` (lower-case words) by their first letters as `[y/r/N]`, `defaultChoice`'s
    /// upper-case. An answer is a choice's letter or the whole word (`y`, `yes`, `r`, `recap`), in any case; Enter
    /// alone, Ctrl-D and Ctrl-C give the default. Any other line typed at the question (a message, even one word such as
    /// `recall`, or a slash command) counts as the default too, said as "Taken as `takenAs`", and is handed back: it is
    /// sent or run next. One typed before the question appeared is handed back without answering it, and the question
    /// is asked again.
    func choose(_ question: String, choices: [String], defaultChoice: String, takenAs: String = "no") async -> String {
        let shown = choices.map { $0 == defaultChoice ? $0.prefix(1).uppercased() : String($0.prefix(1)) }.joined(
            separator: "/")
        while true {
            let prompt = promptRow("\(question)\u{A0}[\(shown)]") + " "
            guard case .line(let line) = await readLine(prompt: prompt, draft: "") else { return defaultChoice }
            let answer = line.trimmingCharacters(in: .whitespaces).lowercased()
            guard !answer.isEmpty else { return defaultChoice }
            if let chosen = choices.first(where: { answer == $0 || answer == String($0.prefix(1)) }) { return chosen }
            handBack(line)
            if readAheadOfQuestion {
                // Typed before the question appeared, so not said to it: it waits, and the question is asked again.
                output.line("That line was typed before the question appeared; it comes after it.")
                continue
            }
            let isCommand = answer.hasPrefix("/") && !answer.hasPrefix("//")
            output.line(
                "Taken as \(takenAs); "
                    + (isCommand
                        ? "running \(UntrustedText.sanitize(line.trimmingCharacters(in: .whitespaces)))."
                        : "sending your message."))
            return defaultChoice
        }
    }

    /// `text` (llmster's own words, values sanitised) as a question's prompt, laid out as `output.line` lays out a
    /// notice: every row but the last is printed now and the last is returned for readline, which would let a prompt
    /// run past the terminal's edge and split the word there. A no-break space (U+00A0) keeps the words on either
    /// side on one row, and prints as a space.
    func promptRow(_ text: String) -> String {
        let rows =
            context.terminal(fd: 1).isTTY ? TextLayout.wrap(text, width: terminalWidth - 1, fit: textFit) : [text]
        for row in rows.dropLast() { output.line(styled: row.replacingOccurrences(of: "\u{A0}", with: " ")) }
        return (rows.last ?? text).replacingOccurrences(of: "\u{A0}", with: " ")
    }

    /// Asks a yes/no question (`choose` with `[y/N]`): yes only for `y` or `yes`.
    func confirm(_ question: String) async -> Bool {
        await choose(question, choices: ["yes", "no"], defaultChoice: "no") == "yes"
    }
}
