internal import CReadline
import Foundation
import Synchronization
import SystemSupport
import TerminalMarkdown

/// GNU readline in its callback mode, so signals and window changes reach it through a wake-up pipe instead of
/// interrupting it; on a line-mode front end (Emacs comint, `TERM=dumb`) plain lines instead (see
/// `LineEditor+LineMode.swift`).
///
/// Readline is global state: one editor per process. It is set up where the editor is made; each
/// `read(prompt:draft:)` then runs readline on a new thread of its own, and reads never overlap (the REPL awaits
/// one before it starts the next), so no two threads are ever inside readline at once. Keys typed while no read
/// runs are collected by `LineEditor+TypeAhead.swift`. Completion and key bindings are C callbacks that reach the
/// Swift side through `ReadlineBridge`.
final class LineEditor: Sendable {
    let wakeRead: Int32
    private let wakeWrite: Int32
    /// Keys typed while no read ran (during a reply or a command), and keys readline still held when it accepted
    /// a line: the input of the next reads, in the order typed.
    let typedAhead = Mutex<[UInt8]>([])
    /// The history kept across runs.
    let history: HistoryFile
    /// Line mode: no readline; lines are read as the front end sends them, ended by LF or CR.
    let readsPlainLines: Bool
    /// Line mode: what was read of the lines not yet returned.
    let plainInput = Mutex(LineSplitter())
    /// Line mode: the terminal settings to restore at the end, when line mode changed them.
    let settingsBeforeLineMode: termios?
    /// Line mode: the terminal opened again for reading without blocking (`openPlainInput`), else standard input.
    let plainInputDescriptor: Int32

    /// Sets readline up: name `llmster` for ~/.inputrc, Emacs bindings, newline keys, bracketed paste, and Ctrl-X Ctrl-E
    /// editing in `$VISUAL` or `$EDITOR` of `environment` (default vi). With `lineMode`, readline is not touched and
    /// the terminal is prepared for plain lines (`LineEditor.prepareLineMode`).
    init(
        history: HistoryFile, environment: [String: String], lineMode: Bool = false,
        completer: @escaping @Sendable (CompletionRequest) -> [String],
        describer: @escaping @Sendable ([String]) -> [String]
    ) {
        var fds: [Int32] = [0, 0]
        if pipe(&fds) != 0 { fds = [-1, -1] }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        // Reads wait in poll; `takeWakeReasons` must not wait at all.
        _ = fcntl(wakeRead, F_SETFL, fcntl(wakeRead, F_GETFL) | O_NONBLOCK)
        self.history = history
        readsPlainLines = lineMode
        settingsBeforeLineMode = lineMode ? Self.prepareLineMode() : nil
        plainInputDescriptor = lineMode ? Self.openPlainInput() : 0
        if lineMode { return }
        ReadlineBridge.state.withLock {
            $0.completer = completer
            $0.describer = describer
            $0.editor = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty } ?? "vi"
        }
        llmster_rl_set_name("llmster")
        llmster_rl_set_catch_signals(0)
        // Before ~/.inputrc is read, so it can turn this off: the first Tab on an ambiguous word lists the matches.
        rl_variable_bind("show-all-if-ambiguous", "on")
        rl_initialize()
        llmster_rl_set_completion_quotes()
        rl_variable_bind("enable-bracketed-paste", "on")
        llmster_rl_set_completion(ReadlineBridge.complete)
        llmster_rl_set_display_matches_hook(ReadlineBridge.displayMatches)
        rl_bind_key(4, ReadlineBridge.endOfInputOnGivenLine)
        rl_bind_key(10, ReadlineBridge.insertNewline)
        rl_bind_keyseq("\\e\\r", ReadlineBridge.insertNewline)
        rl_bind_keyseq("\\C-x\\C-e", ReadlineBridge.editInEditor)
        rl_bind_keyseq("\\e[200~", ReadlineBridge.paste)
        rl_bind_keyseq("\\e]", ReadlineBridge.dropTerminalAnswer)
        rl_bind_keyseq("\\e[?", ReadlineBridge.dropTerminalAnswer)
        rl_bind_keyseq("\\e[I", ReadlineBridge.focusIn)
        rl_bind_keyseq("\\e[O", ReadlineBridge.focusOut)
        using_history()
        for entry in history.entries { add_history(entry) }
    }

    /// Wakes the prompt: `i` for Ctrl-C, `t`/`h` for SIGTERM/SIGHUP, `w` for a window size change, `z` for Ctrl-Z.
    func wake(_ reason: UInt8) {
        var byte = reason
        _ = write(wakeWrite, &byte, 1)
    }

    /// The wake-up bytes no read has taken, oldest first (called when no read runs).
    func takeWakeReasons() -> [UInt8] {
        var reasons: [UInt8] = []
        var byte: UInt8 = 0
        while Foundation.read(wakeRead, &byte, 1) == 1 { reasons.append(byte) }
        return reasons
    }

    /// Reads one line on the readline thread, with `draft` already typed in (in line mode: the prompt printed once,
    /// no draft).
    func read(prompt: String, draft: String) async -> LineInput {
        await BlockingThread.run("llmster-readline") {
            self.readsPlainLines ? self.readPlainLine(prompt: prompt) : self.readBlocking(prompt: prompt, draft: draft)
        }
    }

    /// Whether a bracketed paste went into the line the last read returned (never in line mode).
    var lastLineHeldPaste: Bool { ReadlineBridge.state.withLock { $0.pasted } }

    /// Whether the last read ended the input by Ctrl-D on the untouched text it was given (a draft), rather than on an
    /// empty line.
    var lastEndOfInputKeptGivenLine: Bool { ReadlineBridge.state.withLock { $0.endsInput } }

    /// Whether the last read returned a line typed before its prompt appeared (during a reply or a command, or ahead of
    /// a question), whole from keys that were waiting.
    let lastLineWasTypedAhead = Mutex(false)

    /// Records `line` in the history unless it starts with a space.
    func remember(_ line: String) {
        guard !line.hasPrefix(" "), !line.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return }
        if !readsPlainLines { add_history(line) }
        history.append(line)
    }

    private func readBlocking(prompt: String, draft: String) -> LineInput {
        // A question asked by a command comes with echo off (`beginReply`), where readline would not draw the line.
        let quiet = turnEchoOn()
        defer {
            if var quiet {
                tcsetattr(0, TCSANOW, &quiet)
                // The command goes on after its question: what is pasted meanwhile comes marked again.
                setPasteMarking(true)
            }
        }
        ReadlineBridge.state.withLock {
            $0.accepted = nil
            $0.pastes = []
            $0.given = nil
            $0.endsInput = false
            $0.listedFor = nil
            $0.pasted = false
        }
        var unread =
            typedAhead.withLock { typed in
                defer { typed = [] }
                return typed
            } + Self.takeTypeAhead()
        rl_callback_handler_install(prompt, ReadlineBridge.lineAccepted)
        if !draft.isEmpty {
            let shown = ReadlineBridge.shown(draft, as: "draft of")
            ReadlineBridge.state.withLock { $0.given = shown }
            rl_insert_text(shown)
            rl_redisplay()
            // Keys typed ahead were typed to come after the text now given back (a refused message, a draft): they
            // wait for the prompts after this one rather than run on into it.
            typedAhead.withLock { $0 = unread + $0 }
            unread = []
        }
        lastLineWasTypedAhead.withLock { $0 = false }
        if let input = readPushedInput(&unread) {
            lastLineWasTypedAhead.withLock { $0 = true }
            return input
        }
        while true {
            var descriptors = [
                pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
            ]
            if poll(&descriptors, 2, -1) < 0 {
                if errno == EINTR { continue }
                rl_callback_handler_remove()
                return .endOfInput
            }
            if descriptors[1].revents & Int16(POLLIN) != 0 {
                var byte: UInt8 = 0
                _ = Foundation.read(wakeRead, &byte, 1)
                switch byte {
                case UInt8(ascii: "w"):
                    rl_resize_terminal()
                case UInt8(ascii: "z"):
                    // Ctrl-Z: give the shell a sane terminal while stopped, take raw mode back after `fg`.
                    // raise() stops this very thread at once; kill(getpid()) could let it run on and re-prep first.
                    rl_deprep_terminal()
                    TerminalFocus.shared.suspended { _ = raise(SIGSTOP) }
                    rl_prep_terminal(1)
                    rl_on_new_line()
                    rl_forced_update_display()
                case UInt8(ascii: "i"), UInt8(ascii: "t"), UInt8(ascii: "h"):
                    return interruptedRead(by: byte)
                default:
                    break
                }
            }
            // The terminal hung up (its window closed): the line goes as SIGHUP's would, before readline reads the
            // end of file, which after a second one would empty the line. The SIGHUP itself may come later.
            if descriptors[0].revents & Int16(POLLHUP) != 0 {
                return interruptedRead(by: UInt8(ascii: "h"))
            }
            if descriptors[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                rl_callback_read_char()
                if let input = readPushedInput(&unread) { return input }
            }
        }
    }

    /// Ends a read that Ctrl-C (`i`), SIGTERM (`t`) or SIGHUP (`h`) stopped, the line as it stands for the draft.
    private func interruptedRead(by byte: UInt8) -> LineInput {
        // Like bash: the typed line stays on the screen, `^C` after it, and a new prompt below. A terminal that hung up
        // takes no more output: the writes fail, and are let fail.
        let text = ReadlineBridge.expandingPastes(String(cString: llmster_rl_line_buffer()))
        llmster_rl_set_point(llmster_rl_end())
        rl_redisplay()
        StandardStream.output.send(byte == UInt8(ascii: "i") ? "^C\n" : "\n")
        rl_replace_line("", 0)
        rl_callback_handler_remove()
        if byte == UInt8(ascii: "i") { return .interrupted(draft: text) }
        return .terminated(draft: text, signal: byte == UInt8(ascii: "t") ? SIGTERM : SIGHUP)
    }

    /// Feeds readline the keys typed ahead (`unread`, as many as its buffer takes at a time) and what it holds in
    /// its own buffer (poll cannot see either); once a line is accepted, returns it, and what readline and `unread`
    /// still hold waits in `typedAhead` for the next read, after the keys typed earlier that a given draft held back.
    private func readPushedInput(_ unread: inout [UInt8]) -> LineInput? {
        while true {
            if let accepted = ReadlineBridge.state.withLock({ $0.accepted }) {
                let heldBack = ReadlineBridge.state.withLock { state in
                    defer { state.heldBack = [] }
                    return state.heldBack
                }
                let rest = heldBack + unread
                typedAhead.withLock { $0 += rest }
                unread = []
                return accepted.map(LineInput.line) ?? .endOfInput
            }
            if llmster_rl_has_pushed_input() == 0 {
                if unread.starts(with: Self.pasteStart) {
                    insertPaste(&unread)
                    continue
                }
                // Keys up to a paste's start only: readline reads a paste's rest from the terminal, not from here.
                let keys = unread.firstRange(of: Self.pasteStart)?.lowerBound ?? unread.count
                var stuffed = 0
                while stuffed < keys, rl_stuff_char(Int32(unread[stuffed])) != 0 { stuffed += 1 }
                unread.removeFirst(stuffed)
                guard stuffed > 0 else { return nil }
            }
            rl_callback_read_char()
        }
    }

    /// The marks a terminal puts around a paste while bracketed paste is on.
    private static let pasteStart = Array("\u{1B}[200~".utf8)
    private static let pasteEnd = Array("\u{1B}[201~".utf8)

    /// Puts the paste at the start of `unread` (typed ahead, during a reply or a command) in the line as the paste key
    /// binding does, and takes it out of `unread`. Readline's own paste reader reads up to the end mark from the
    /// terminal, which does not hold what was typed ahead: a paste longer than readline's input buffer hung the prompt.
    /// A paste whose end had not arrived when the reply ended is read on from the terminal up to its end mark.
    private func insertPaste(_ unread: inout [UInt8]) {
        var bytes = Array(unread.dropFirst(Self.pasteStart.count))
        unread = []
        while bytes.firstRange(of: Self.pasteEnd) == nil {
            var descriptor = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            var chunk = [UInt8](repeating: 0, count: 4096)
            guard poll(&descriptor, 1, 1000) > 0 else { break }
            let count = Foundation.read(0, &chunk, chunk.count)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        var text = bytes
        if let end = bytes.firstRange(of: Self.pasteEnd) {
            text = Array(bytes[..<end.lowerBound])
            unread = Array(bytes[end.upperBound...])
        }
        // The terminal's normal mode turned the paste's line ends into the Enter key (`asTyped`): they are newlines.
        ReadlineBridge.insertPasted(String(decoding: text.map { $0 == 13 ? 10 : $0 }, as: UTF8.self))
        rl_redisplay()
    }
}
