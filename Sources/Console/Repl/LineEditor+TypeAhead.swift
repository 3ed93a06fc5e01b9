internal import CReadline
import Foundation

/// Keys typed while no read runs: during a reply (echo off) and during a command (the terminal's normal mode). They
/// are kept, in order, for the next reads (`typedAhead`), so every line typed ahead arrives, each at its own prompt.
extension LineEditor {
    /// Turns echo off while a reply streams or a command runs, so focus reports and keys typed meanwhile do not garble
    /// its output; returns the terminal settings `endReply` restores.
    ///
    /// Outside line mode the end-of-file key is disabled too, so Ctrl-D typed meanwhile is kept as the key it is (the
    /// terminal's normal mode would turn it into an end of file that no read is waiting for, and it would be lost):
    /// at the next prompt it quits as it would have there. In line mode the terminal keeps its keys, since the typed
    /// lines stay in it for the next read (Emacs's C-c C-d sends the end-of-file key).
    ///
    /// Readline turns the terminal's bracketed paste off when a read ends; it is turned on again here, so text pasted
    /// meanwhile comes marked and reaches the next prompt as a paste (its newlines in the line, not sending it line by
    /// line); `endReply` turns it off again, as readline leaves it between reads.
    func beginReply() -> termios? {
        var settings = termios()
        guard tcgetattr(0, &settings) == 0 else { return nil }
        var quiet = settings
        // NOFLSH: Ctrl-C stops the reply without the terminal discarding what was typed meanwhile.
        quiet.c_lflag &= ~tcflag_t(ECHO)
        quiet.c_lflag |= tcflag_t(NOFLSH)
        if !readsPlainLines {
            withUnsafeMutableBytes(of: &quiet.c_cc) { $0[Int(VEOF)] = 0 }  // _POSIX_VDISABLE on Linux
        }
        tcsetattr(0, TCSANOW, &quiet)
        setPasteMarking(true)
        return settings
    }

    /// Turns the terminal's bracketed paste on or off, where readline would use it.
    func setPasteMarking(_ on: Bool) {
        guard !readsPlainLines, isatty(1) == 1, Self.marksPastes else { return }
        StandardStream.output.send(laidOut: on ? "\u{1B}[?2004h" : "\u{1B}[?2004l")
    }

    /// Whether readline marks pastes (`enable-bracketed-paste`, which ~/.inputrc may turn off).
    private static var marksPastes: Bool {
        rl_variable_value("enable-bracketed-paste").map { String(cString: $0) == "on" } ?? false
    }

    /// Turns echo on for a read while it is off (a question asked during a command); returns the settings to restore
    /// after the read, or nil when echo was on.
    func turnEchoOn() -> termios? {
        var settings = termios()
        guard tcgetattr(0, &settings) == 0, settings.c_lflag & tcflag_t(ECHO) == 0 else { return nil }
        var echoing = settings
        echoing.c_lflag |= tcflag_t(ECHO)
        tcsetattr(0, TCSANOW, &echoing)
        return settings
    }

    /// Takes what was typed during the reply (whole lines or not) for the next prompt, records the focus reports
    /// among it, and restores `settings`. In line mode the typed lines stay in the terminal for the next prompt.
    func endReply(_ settings: termios?) {
        guard var settings else { return }
        if readsPlainLines {
            tcsetattr(0, TCSANOW, &settings)
            return
        }
        var reading = settings
        reading.c_lflag &= ~tcflag_t(ECHO | ICANON)
        withUnsafeMutableBytes(of: &reading.c_cc) {
            $0[Int(VMIN)] = 0
            $0[Int(VTIME)] = 0
        }
        tcsetattr(0, TCSANOW, &reading)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while bytes.count < 4096 {
            let count = Foundation.read(0, &chunk, chunk.count)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        tcsetattr(0, TCSANOW, &settings)
        setPasteMarking(false)
        let typed = Self.asTyped(TerminalFocus.shared.removingReports(from: bytes))
        typedAhead.withLock { $0 += typed }
    }

    /// The text of the keys typed ahead that no read took, taken from them: lines joined by newlines, without the
    /// terminal's key sequences and paste marks (for the draft kept when SIGTERM or SIGHUP ends the REPL before a
    /// prompt could show them).
    func takeTypedAheadText() -> String {
        let keys = typedAhead.withLock { typed in
            defer { typed = [] }
            return typed
        }
        var text: [UInt8] = []
        var index = 0
        while index < keys.count {
            let key = keys[index]
            index += 1
            if key == 0x1B {
                // CSI and SS3 sequences end at their final byte; any other escape takes one key with it.
                guard index < keys.count else { break }
                let kind = keys[index]
                index += 1
                if kind == UInt8(ascii: "[") {
                    while index < keys.count, !(0x40...0x7E).contains(keys[index]) { index += 1 }
                    index += 1
                } else if kind == UInt8(ascii: "O") {
                    index += 1
                }
            } else if key == 13 || key == 10 {
                text.append(10)
            } else if key >= 0x20 && key != 0x7F {
                text.append(key)
            }
        }
        return String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whole lines typed while the terminal was in its normal mode (during a reply or a command), up to 400 bytes.
    static func takeTypeAhead() -> [UInt8] {
        var bytes: [UInt8] = []
        var available: Int32 = 0
        while bytes.count < 400, ioctl(0, UInt(FIONREAD), &available) == 0, available > 0 {
            var chunk = [UInt8](repeating: 0, count: min(Int(available), 400 - bytes.count))
            let count = Foundation.read(0, &chunk, chunk.count)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return asTyped(bytes)
    }

    /// Keys read in the terminal's normal mode as readline would have had them: each line end back to the carriage
    /// return Enter sent (the terminal turned it into Ctrl-J, which would insert a newline instead of sending the
    /// line), and without Ctrl-L, which would clear the screen, answer and all, the moment the prompt came back.
    static func asTyped(_ bytes: [UInt8]) -> [UInt8] {
        bytes.compactMap { byte in
            switch byte {
            case 10: 13
            case 12: nil
            default: byte
            }
        }
    }
}
