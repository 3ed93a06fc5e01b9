internal import CReadline
import Foundation
import Synchronization
import SystemSupport
import TerminalMarkdown

/// What came back from the prompt.
enum LineInput: Sendable, Equatable {
    /// Enter was pressed on this text.
    case line(String)
    /// Ctrl-C: the line is cleared; `draft` is what it held.
    case interrupted(draft: String)
    /// Ctrl-D on an empty line, or the end of piped input.
    case endOfInput
    /// SIGTERM or SIGHUP arrived at the prompt; `draft` is what the line held.
    case terminated(draft: String, signal: Int32)
}

/// GNU readline in its callback mode, on a thread of its own, so signals and window changes reach it
/// through a wake-up pipe instead of interrupting it; on a line-mode front end (Emacs comint, `TERM=dumb`)
/// plain lines instead (see `LineEditor+LineMode.swift`).
///
/// Readline is global state: one editor per process, and every readline call happens on the thread
/// `read(prompt:draft:)` starts. Completion and key bindings are C callbacks that reach the Swift side
/// through `ReadlineBridge`.
final class LineEditor: Sendable {
    let wakeRead: Int32
    private let wakeWrite: Int32
    /// Keys typed while a reply streamed, for the next prompt.
    private let typedDuringReply = Mutex<[UInt8]>([])
    /// The history kept across runs.
    let history: HistoryFile
    /// Line mode: no readline; lines are read as the front end sends them, ended by LF or CR.
    let readsPlainLines: Bool
    /// Line mode: what was read of the lines not yet returned.
    let plainInput = Mutex(LineSplitter())
    /// Line mode: the terminal settings to restore at the end, when line mode changed them.
    let settingsBeforeLineMode: termios?

    /// Sets readline up: name `llmster` for ~/.inputrc, Emacs bindings, newline keys, bracketed paste, and Ctrl-X Ctrl-E
    /// editing in `$VISUAL` or `$EDITOR` of `environment` (default vi). With `lineMode`, readline is not touched and
    /// the terminal is prepared for plain lines (`LineEditor.prepareLineMode`).
    init(history: HistoryFile, environment: [String: String], lineMode: Bool = false,
         completer: @escaping @Sendable (CompletionRequest) -> [String],
         describer: @escaping @Sendable ([String]) -> [String]) {
        var fds: [Int32] = [0, 0]
        if pipe(&fds) != 0 { fds = [-1, -1] }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        self.history = history
        readsPlainLines = lineMode
        settingsBeforeLineMode = lineMode ? Self.prepareLineMode() : nil
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
        rl_bind_key(10, ReadlineBridge.insertNewline)
        rl_bind_keyseq("\\e\\r", ReadlineBridge.insertNewline)
        rl_bind_keyseq("\\C-x\\C-e", ReadlineBridge.editInEditor)
        rl_bind_keyseq("\\e[200~", ReadlineBridge.paste)
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

    /// Reads one line on the readline thread, with `draft` already typed in (in line mode: the prompt printed once,
    /// no draft).
    func read(prompt: String, draft: String) async -> LineInput {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: self.readsPlainLines ? self.readPlainLine(prompt: prompt)
                                                                    : self.readBlocking(prompt: prompt, draft: draft))
            }
            thread.name = "llmster-readline"
            thread.start()
        }
    }

    /// Records `line` in the history unless it starts with a space.
    func remember(_ line: String) {
        guard !line.hasPrefix(" "), !line.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return }
        if !readsPlainLines { add_history(line) }
        history.append(line)
    }

    private func readBlocking(prompt: String, draft: String) -> LineInput {
        ReadlineBridge.state.withLock {
            $0.accepted = nil
            $0.pastes = []
        }
        let typedAhead = typedDuringReply.withLock { typed in
            defer { typed = [] }
            return typed
        } + Self.takeTypeAhead()
        rl_callback_handler_install(prompt, ReadlineBridge.lineAccepted)
        if !draft.isEmpty {
            rl_insert_text(ReadlineBridge.shown(draft, as: "draft of"))
            rl_redisplay()
        }
        for byte in typedAhead { _ = rl_stuff_char(Int32(byte)) }
        if let input = readPushedInput() { return input }
        while true {
            var descriptors = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
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
                    // Like bash: the typed line stays on the screen, `^C` after it, and a new prompt below.
                    let text = ReadlineBridge.expandingPastes(String(cString: llmster_rl_line_buffer()))
                    llmster_rl_set_point(llmster_rl_end())
                    rl_redisplay()
                    FileHandle.standardOutput.write(Data((byte == UInt8(ascii: "i") ? "^C\n" : "\n").utf8))
                    rl_replace_line("", 0)
                    rl_callback_handler_remove()
                    if byte == UInt8(ascii: "i") { return .interrupted(draft: text) }
                    return .terminated(draft: text, signal: byte == UInt8(ascii: "t") ? SIGTERM : SIGHUP)
                default:
                    break
                }
            }
            if descriptors[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                rl_callback_read_char()
                if let input = readPushedInput() { return input }
            }
        }
    }

    /// Turns echo off while a reply streams, so focus reports and keys typed meanwhile do not garble it; returns the
    /// terminal settings `endReply` restores.
    func beginReply() -> termios? {
        var settings = termios()
        guard tcgetattr(0, &settings) == 0 else { return nil }
        var quiet = settings
        quiet.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(0, TCSANOW, &quiet)
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
        withUnsafeMutableBytes(of: &reading.c_cc) { $0[Int(VMIN)] = 0; $0[Int(VTIME)] = 0 }
        tcsetattr(0, TCSANOW, &reading)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while bytes.count < 4096 {
            let count = Foundation.read(0, &chunk, chunk.count)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        tcsetattr(0, TCSANOW, &settings)
        let typed = TerminalFocus.shared.removingReports(from: bytes).map { $0 == 10 ? 13 : $0 }
        typedDuringReply.withLock { $0 += typed }
    }

    /// Feeds readline what it holds in its own buffer (poll cannot see it); the line once one is accepted.
    private func readPushedInput() -> LineInput? {
        while true {
            if let accepted = ReadlineBridge.state.withLock({ $0.accepted }) {
                return accepted.map(LineInput.line) ?? .endOfInput
            }
            guard llmster_rl_has_pushed_input() != 0 else { return nil }
            rl_callback_read_char()
        }
    }

    /// Whole lines typed while the terminal was in its normal mode (during a reply or a command), up to 400 bytes,
    /// with each line end back to the carriage return Enter sent: the terminal turned it into Ctrl-J, which would
    /// insert a newline instead of sending the line.
    private static func takeTypeAhead() -> [UInt8] {
        var bytes: [UInt8] = []
        var available: Int32 = 0
        while bytes.count < 400, ioctl(0, UInt(FIONREAD), &available) == 0, available > 0 {
            var chunk = [UInt8](repeating: 0, count: min(Int(available), 400 - bytes.count))
            let count = Foundation.read(0, &chunk, chunk.count)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return bytes.map { $0 == 10 ? 13 : $0 }
    }
}

/// Where the C callbacks find the Swift side.
enum ReadlineBridge {
    /// What the callbacks share with the editor.
    struct State {
        /// Set by the line handler: the accepted line, or nil for end of input.
        var accepted: String??
        var completer: (@Sendable (CompletionRequest) -> [String])?
        /// Turns matches into the lines the match list shows (model keys get their badges).
        var describer: (@Sendable ([String]) -> [String])?
        /// The shell command Ctrl-X Ctrl-E edits the line with.
        var editor = "vi"
        /// Pastes too tall for the screen, shown in the line as their placeholder (`[pasted 63 lines]`) and put back on Enter.
        var pastes: [(placeholder: String, text: String)] = []
    }

    /// The terminal's focus report `CSI I`: the window has the focus.
    static let focusIn: @convention(c) (Int32, Int32) -> Int32 = { _, _ in
        TerminalFocus.shared.record(focused: true)
        return 0
    }

    /// The terminal's focus report `CSI O`: the user switched away.
    static let focusOut: @convention(c) (Int32, Int32) -> Int32 = { _, _ in
        TerminalFocus.shared.record(focused: false)
        return 0
    }

    /// Bracketed paste: readline reads the pasted text; text taller than the screen leaves only a placeholder in the
    /// line, since readline cannot redraw a line taller than the screen without losing its middle from the scrollback.
    static let paste: @convention(c) (Int32, Int32) -> Int32 = { count, key in
        let start = llmster_rl_point()
        let status = rl_bracketed_paste_begin(count, key)
        let end = llmster_rl_point()
        let buffer = Array(String(cString: llmster_rl_line_buffer()).utf8)
        guard start < end, end <= buffer.count else { return status }
        let text = String(decoding: buffer[Int(start)..<Int(end)], as: UTF8.self)
        let placeholder = shown(text)
        guard placeholder != text else { return status }
        rl_delete_text(start, end)
        llmster_rl_set_point(start)
        rl_insert_text(placeholder)
        return status
    }

    /// What the line shows for `text`: the text, or, when it is taller than the screen (the prompt's two lines and
    /// one more kept visible), a placeholder `[pasted 63 lines]` (`kind` names it) registered to stand for it.
    static func shown(_ text: String, as kind: String = "pasted") -> String {
        var rows: Int32 = 0
        var columns: Int32 = 0
        rl_get_screen_size(&rows, &columns)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let screenRows = lines.reduce(0) { $0 + max(1, (DisplayWidth.of(String($1)) + Int(columns) - 1) / max(Int(columns), 1)) }
        guard rows > 0, screenRows > Int(rows) - 3 else { return text }
        let placeholder = "[\(kind) \(lines.count) lines]"
        state.withLock { $0.pastes.append((placeholder, text)) }
        return placeholder
    }

    /// `line` with each paste placeholder, in order, replaced by the text it stands for.
    static func expandingPastes(_ line: String) -> String {
        var result = line
        var searchStart = result.startIndex
        for paste in state.withLock({ $0.pastes }) {
            guard let range = result.range(of: paste.placeholder, range: searchStart..<result.endIndex) else { continue }
            let end = result.utf8.distance(from: result.startIndex, to: range.lowerBound) + paste.text.utf8.count
            result.replaceSubrange(range, with: paste.text)
            searchStart = result.utf8.index(result.startIndex, offsetBy: end)
        }
        return result
    }

    /// Lists the matches one a line, described (`acme/thinker-8b  loaded · reasoning · 4.9 GB`), then redraws the prompt.
    static let displayMatches: @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, Int32, Int32) -> Void = { matches, count, _ in
        guard let matches, count > 0 else { return }
        let words = (1...Int(count)).compactMap { matches[$0].map { String(cString: $0) } }
        let lines = state.withLock { $0.describer }?(words) ?? words
        FileHandle.standardOutput.write(Data(("\n" + lines.joined(separator: "\n") + "\n").utf8))
        rl_on_new_line()
        rl_forced_update_display()
    }

    /// The shared state.
    static let state = Mutex(State())

    /// Readline's line handler: records the line (nil at end of input) and removes the handler.
    static let lineAccepted: @convention(c) (UnsafeMutablePointer<CChar>?) -> Void = { line in
        let text = line.map { expandingPastes(String(cString: $0)) }
        free(line)
        rl_callback_handler_remove()
        if text == nil { FileHandle.standardOutput.write(Data("\n".utf8)) }
        state.withLock { $0.accepted = .some(text) }
    }

    /// Alt-Enter and Ctrl-J: a newline in the message instead of sending it.
    static let insertNewline: @convention(c) (Int32, Int32) -> Int32 = { _, _ in
        rl_insert_text("\n")
        return 0
    }

    /// Ctrl-X Ctrl-E: the line goes to a private temporary file, `$VISUAL`/`$EDITOR` edits it, the result comes back.
    static let editInEditor: @convention(c) (Int32, Int32) -> Int32 = { _, _ in
        let text = String(cString: llmster_rl_line_buffer())
        let path = NSTemporaryDirectory() + "llmster-edit-\(getpid()).md"
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            rl_ding()
            return 0
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        rl_deprep_terminal()
        FileHandle.standardOutput.write(Data("\n".utf8))
        let editor = state.withLock { $0.editor }
        let status = ExternalProgram.runShell("\(editor) \"$1\"", arguments: [path])
        rl_prep_terminal(1)
        if status == 0, let edited = try? String(contentsOfFile: path, encoding: .utf8) {
            let trimmed = edited.hasSuffix("\n") ? String(edited.dropLast()) : edited
            rl_replace_line(trimmed, 0)
            llmster_rl_set_point(Int32(trimmed.utf8.count))
        }
        rl_on_new_line()
        rl_forced_update_display()
        return 0
    }

    /// Readline's completion: commands and arguments from the completer, `/attach` paths from readline's own.
    static let complete: @convention(c) (UnsafePointer<CChar>?, Int32, Int32) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = { text, start, end in
        let word = text.map { String(cString: $0) } ?? ""
        let line = String(cString: llmster_rl_line_buffer())
        let prefix = String(decoding: Array(line.utf8.prefix(Int(start))), as: UTF8.self)
        guard let completer = state.withLock({ $0.completer }) else { return nil }
        let quote = llmster_rl_completion_quote_character()
        let request = CompletionRequest(before: prefix, word: word, quote: quote == 0 ? nil : Character(UnicodeScalar(UInt8(quote))))
        if request.wantsPaths {
            return llmster_filename_matches(word)
        }
        llmster_rl_set_no_default_completion(1)
        let matches = completer(request)
        guard !matches.isEmpty else { return nil }
        let array = llmster_match_array(Int32(matches.count + 1))!
        // A common prefix shorter than the word (a quoted title among plain ones) would delete what was typed.
        let common = CompletionRequest.commonPrefix(of: matches)
        array[0] = llmster_strdup(matches.count == 1 ? matches[0] : common.count >= word.count ? common : word)
        if matches.count > 1 {
            for (index, match) in matches.enumerated() { array[index + 1] = llmster_strdup(match) }
        }
        return array
    }
}

/// The word being completed and the line before it.
struct CompletionRequest: Sendable, Equatable {
    /// The line up to the start of the word.
    var before: String
    /// The partial word.
    var word: String
    /// The quote the word is inside (`"` or `'`), when it started with one.
    var quote: Character? = nil

    /// The words before the one being completed.
    var previousWords: [String] { before.split(separator: " ").map(String.init) }

    /// Whether the word is a file name (`/attach`, `/save`, `/import` …), completed by readline's own filename completion.
    var wantsPaths: Bool {
        guard let first = previousWords.first else { return false }
        return ReplCommands.all.first { "/" + $0.name == first }?.argument == .path
    }

    /// The longest prefix every match shares.
    static func commonPrefix(of matches: [String]) -> String {
        guard var prefix = matches.first else { return "" }
        for match in matches.dropFirst() {
            while !match.hasPrefix(prefix) { prefix.removeLast() }
        }
        return prefix
    }
}

/// Runs a program in the foreground on the terminal.
enum ExternalProgram {
    /// Runs `/bin/sh -c SCRIPT sh ARGUMENTS…` and waits; returns its exit status (-1 when it could not start or a signal ended it).
    ///
    /// The REPL ignores SIGINT, SIGTERM and SIGHUP while it traps them; the program gets the defaults back.
    static func runShell(_ script: String, arguments: [String]) -> Int32 {
        TerminalFocus.shared.suspended {
            guard let process = try? SpawnedProcess(program: "/bin/sh", arguments: ["-c", script, "sh"] + arguments) else { return -1 }
            guard case .exited(let status) = process.wait() else { return -1 }
            return status
        }
    }

    /// Whether `program` is an executable file in a directory of `environment`'s `PATH`.
    static func isAvailable(_ program: String, environment: [String: String]) -> Bool {
        (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(program)")
        }
    }

    /// Runs `program ARGUMENTS…` with `text` on its standard input (output discarded) and waits; whether it succeeded.
    static func feed(_ text: String, to program: String, arguments: [String]) -> Bool {
        var ends: [Int32] = [0, 0]
        // A socket pair rather than a pipe: a program that exits without reading cannot kill the REPL with SIGPIPE.
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else { return false }
        let null = open("/dev/null", O_WRONLY)
        defer { if null >= 0 { close(null) } }
        guard let process = try? SpawnedProcess(program: program, arguments: arguments, standardInput: ends[1],
                                                standardOutput: null, standardError: null) else {
            close(ends[0])
            close(ends[1])
            return false
        }
        close(ends[1])
        let written = (try? Descriptor.writeAll(ends[0], Array(text.utf8), suppressingSIGPIPE: true)) != nil
        close(ends[0])
        return process.wait().succeeded && written
    }
}
