import Glibc

/// Echo turned off while a one-shot command (`ask`, `voice`) draws a reply on the terminal: keys typed meanwhile are
/// not echoed into the drawing, nor is Ctrl-C's `^C` (Ctrl-C still makes the terminal discard what was typed, as it
/// always did). The REPL does the same for its replies in `LineEditor.beginReply`, keeping what was typed.
///
/// Only when standard input and output are the same terminal and llmster is in the foreground: a pager at the other
/// end of a pipe sets the terminal's modes itself, and putting them back would undo its own; a background job
/// (`llmster ask … &`, or one put there with Ctrl-Z and `bg`) would be stopped by SIGTTOU.
public struct ReplyEcho {
    private let saved: termios?

    /// Turns echo off when the terminal is llmster's to change; otherwise changes nothing.
    public init() {
        saved = Self.quieten()
    }

    /// Puts back the settings `init` changed. Call it while the signal trap still takes Ctrl-C, so that a second one
    /// cannot end llmster with echo off.
    public func restore() {
        guard var settings = saved, Self.isForeground else { return }
        tcsetattr(0, TCSANOW, &settings)
    }

    private static func quieten() -> termios? {
        guard isatty(0) == 1, isatty(1) == 1, isForeground else { return nil }
        var input = stat()
        var output = stat()
        guard fstat(0, &input) == 0, fstat(1, &output) == 0, input.st_rdev == output.st_rdev else { return nil }
        var saved = termios()
        guard tcgetattr(0, &saved) == 0 else { return nil }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(0, TCSANOW, &quiet)
        return saved
    }

    /// Whether llmster's process group holds the terminal.
    private static var isForeground: Bool { tcgetpgrp(0) == getpgrp() }
}
