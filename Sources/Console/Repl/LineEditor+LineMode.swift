import Foundation
import Markdown
import TerminalMarkdown

/// Line mode: the prompt printed once, lines read as the front end sends them (Emacs comint, `TERM=dumb`, a
/// script on a pty), no readline, and no escape sequence besides the prompt's own SGR.
extension LineEditor {
    /// When the terminal does not echo (comint, a script: the front end edits the line itself), turns canonical
    /// mode and CR translation off, so a line longer than the kernel's 4,096-byte line buffer arrives whole and a
    /// CR LF ends one line, not two; signals (Ctrl-C, Ctrl-Z) still come from the terminal. Returns the settings
    /// `restoreTerminal` puts back.
    static func prepareLineMode() -> termios? {
        var settings = termios()
        guard tcgetattr(0, &settings) == 0, settings.c_lflag & tcflag_t(ECHO) == 0 else { return nil }
        var raw = settings
        raw.c_lflag &= ~tcflag_t(ICANON)
        raw.c_iflag &= ~tcflag_t(ICRNL | INLCR | IGNCR)
        withUnsafeMutableBytes(of: &raw.c_cc) {
            $0[Int(VMIN)] = 1
            $0[Int(VTIME)] = 0
        }
        tcsetattr(0, TCSANOW, &raw)
        return settings
    }

    /// The terminal on standard input opened again, non-blocking, for line mode's reads; standard input itself when it
    /// cannot be. A read of standard input could block for good: Ctrl-C discards the terminal's pending input (the
    /// `ISIG` flush) between the `poll` that saw a half-typed line and the `read` of it, and then the wake-up that
    /// Ctrl-C sent would never be looked at. A descriptor of its own keeps `O_NONBLOCK` off the one the shell shares.
    static func openPlainInput() -> Int32 {
        let descriptor = open("/proc/self/fd/0", O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        return descriptor >= 0 && isatty(descriptor) == 1 ? descriptor : 0
    }

    /// Puts back the terminal settings line mode changed (at the REPL's end).
    func restoreTerminal() {
        guard var settings = settingsBeforeLineMode else { return }
        tcsetattr(0, TCSANOW, &settings)
    }

    /// Prints `prompt` (readline's invisible-text markers removed) and waits for a whole line, Ctrl-D or a signal.
    ///
    /// A line typed while a reply streamed (whole before the prompt) is printed after the prompt, so the transcript
    /// shows it where it was sent, as typed: the front end echoed it in the middle of the reply.
    func readPlainLine(prompt: String) -> LineInput {
        let shown = prompt.replacingOccurrences(of: "\u{1}", with: "").replacingOccurrences(of: "\u{2}", with: "")
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        if plainInputDescriptor != 0 {
            // What is pending before the prompt is shown (the descriptor does not block) was typed ahead.
            let count = Foundation.read(plainInputDescriptor, &chunk, chunk.count)
            if count > 0 { plainInput.withLock { $0.feed(chunk[0..<count]) } }
        }
        StandardStream.output.send(laidOut: shown)
        var typedAhead = true
        while true {
            switch plainInput.withLock({ $0.next() }) {
            case .line(let text):
                if typedAhead {
                    StandardStream.output.send(laidOut: UntrustedText.sanitize(text) + "\n")
                }
                lastLineWasTypedAhead.withLock { $0 = typedAhead }
                return .line(text)
            case .end: return .endOfInput
            case nil: typedAhead = false
            }
            var descriptors = [
                pollfd(fd: plainInputDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
            ]
            if poll(&descriptors, 2, -1) < 0 {
                if errno == EINTR { continue }
                return .endOfInput
            }
            if descriptors[1].revents & Int16(POLLIN) != 0 {
                var byte: UInt8 = 0
                _ = Foundation.read(wakeRead, &byte, 1)
                switch byte {
                case UInt8(ascii: "i"), UInt8(ascii: "t"), UInt8(ascii: "h"):
                    // comint leaves `  C-c C-c` after the typed text and a terminal `^C`: the next prompt starts a line.
                    let draft = plainInput.withLock { $0.discard() }
                    StandardStream.output.send("\n")
                    if byte == UInt8(ascii: "i") { return .interrupted(draft: draft) }
                    return .terminated(draft: draft, signal: byte == UInt8(ascii: "t") ? SIGTERM : SIGHUP)
                case UInt8(ascii: "z"):
                    // The shell gets its own settings back while stopped; after `fg` the prompt comes again.
                    restoreTerminal()
                    _ = raise(SIGSTOP)
                    if settingsBeforeLineMode != nil { _ = Self.prepareLineMode() }
                    StandardStream.output.send(laidOut: shown)
                default:
                    break
                }
            }
            if descriptors[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                let count = Foundation.read(plainInputDescriptor, &chunk, chunk.count)
                if count > 0 {
                    plainInput.withLock { $0.feed(chunk[0..<count]) }
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    plainInput.withLock { $0.finish() }
                }
            }
        }
    }
}
