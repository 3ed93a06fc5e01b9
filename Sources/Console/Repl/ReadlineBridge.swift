internal import CReadline
import Foundation
import Synchronization
import SystemSupport
import TerminalMarkdown

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
        /// The text the line was given (a draft, an unsent message) as it shows there; while the line holds just that,
        /// Ctrl-D still ends the input.
        var given: String?
        /// Set by Ctrl-D on a given line: the accepted line is the end of input, not a message.
        var endsInput = false
        /// The keys readline still held when it accepted a line, for the next read.
        var heldBack: [UInt8] = []
        /// The line the matches were last listed for: a second Tab on it does not list them again.
        var listedFor: String?
        /// Whether a bracketed paste went into the line being read.
        var pasted = false
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

    /// A terminal's answer read as keys (an OSC 11 colour report `ESC ] … BEL` or `ESC ] … ESC \`, a DA1 answer
    /// `ESC [ ? … c`), as one to the start-up background query that came after its wait: dropped, not inserted.
    /// Keys that arrive together with it are its rest; once none follows within a tenth of a second, it is over.
    static let dropTerminalAnswer: @convention(c) (Int32, Int32) -> Int32 = { _, key in
        let endsAtLetter = key == Int32(UInt8(ascii: "?"))
        var previous: Int32 = 0
        while llmster_rl_has_pushed_input() != 0 || keyArrives(withinMilliseconds: 100) {
            let next = rl_read_key()
            guard next >= 0 else { break }
            if endsAtLetter
                ? (65...90).contains(next) || (97...122).contains(next) : next == 7 || (previous == 27 && next == 92)
            {
                break
            }
            previous = next
        }
        return 0
    }

    private static func keyArrives(withinMilliseconds milliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, milliseconds) > 0
    }

    /// Bracketed paste: readline reads the pasted text; text taller than the screen leaves only a placeholder in the
    /// line, since readline cannot redraw a line taller than the screen without losing its middle from the scrollback.
    static let paste: @convention(c) (Int32, Int32) -> Int32 = { count, key in
        let start = llmster_rl_point()
        let status = rl_bracketed_paste_begin(count, key)
        state.withLock { $0.pasted = true }
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

    /// Puts `text` in the line as the paste binding leaves a paste (taken literally when sent, a placeholder when it
    /// is taller than the screen), for a paste readline did not read itself (one typed ahead).
    static func insertPasted(_ text: String) {
        state.withLock { $0.pasted = true }
        rl_insert_text(shown(text))
    }

    /// What the line shows for `text`: the text, or, when it is taller than the screen (the prompt's two lines and
    /// one more kept visible), a placeholder `[pasted 63 lines]` (`kind` names it) registered to stand for it.
    static func shown(_ text: String, as kind: String = "pasted") -> String {
        var rows: Int32 = 0
        var columns: Int32 = 0
        rl_get_screen_size(&rows, &columns)
        // A paste of 42 lines usually ends with the 42nd line's newline: that is not a 43rd line.
        let lines = (text.hasSuffix("\n") ? String(text.dropLast()) : text).split(
            separator: "\n", omittingEmptySubsequences: false)
        let screenRows = lines.reduce(0) {
            $0 + max(1, (DisplayWidth.of(String($1)) + Int(columns) - 1) / max(Int(columns), 1))
        }
        guard rows > 0, screenRows > Int(rows) - 3 else { return text }
        let placeholder = "[\(kind) \(lines.count) \(lines.count == 1 ? "line" : "lines")]"
        state.withLock { $0.pastes.append((placeholder, text)) }
        return placeholder
    }

    /// `line` with each paste placeholder, in order, replaced by the text it stands for.
    static func expandingPastes(_ line: String) -> String {
        var result = line
        var searchStart = result.startIndex
        for paste in state.withLock({ $0.pastes }) {
            guard let range = result.range(of: paste.placeholder, range: searchStart..<result.endIndex) else {
                continue
            }
            let end = result.utf8.distance(from: result.startIndex, to: range.lowerBound) + paste.text.utf8.count
            result.replaceSubrange(range, with: paste.text)
            searchStart = result.utf8.index(result.startIndex, offsetBy: end)
        }
        return result
    }

    /// Lists the matches, then redraws the prompt: described ones (model keys with their badges,
    /// `acme/thinker-8b  loaded · reasoning · 4.9 GB`) one a line, plain ones in columns (`CompletionListing`), cut
    /// to the screen with a note of how many more. A Tab again on the same line does not list them again.
    static let displayMatches:
        @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, Int32, Int32) -> Void = {
            matches, count, _ in
            guard let matches, count > 0 else { return }
            let words = (1...Int(count)).compactMap { matches[$0].map { String(cString: $0) } }
            let line = String(cString: llmster_rl_line_buffer())
            let listedAlready = state.withLock { state in
                defer { state.listedFor = line }
                return state.listedFor == line
            }
            guard !listedAlready else {
                rl_ding()
                return
            }
            let described = state.withLock { $0.describer }?(words) ?? words
            var rows: Int32 = 0
            var columns: Int32 = 0
            rl_get_screen_size(&rows, &columns)
            let listing = CompletionListing(described == words ? words : described, oneALine: described != words)
            let text = listing.lines(width: Int(columns), height: Int(rows)).joined(separator: "\n")
            StandardStream.output.send(laidOut: "\n" + text + "\n")
            rl_on_new_line()
            rl_forced_update_display()
        }

    /// The shared state.
    static let state = Mutex(State())

    /// Readline's line handler: records the line (nil at end of input), removes the handler, and takes back the keys
    /// readline still holds (lines typed ahead), which it would otherwise read on with no handler and lose.
    static let lineAccepted: @convention(c) (UnsafeMutablePointer<CChar>?) -> Void = { line in
        let text = line.map { expandingPastes(String(cString: $0)) }
        free(line)
        rl_callback_handler_remove()
        var held: [UInt8] = []
        while case let key = llmster_rl_take_pushed_key(), key >= 0 { held.append(UInt8(truncatingIfNeeded: key)) }
        if text == nil { StandardStream.output.send("\n") }
        state.withLock {
            $0.accepted = .some($0.endsInput ? nil : text)
            $0.heldBack = held
        }
    }

    /// Ctrl-D on a line that holds only the text it was given (a restored draft, an unsent message): the end of
    /// input, as on an empty line, the text kept as the draft; on any other line, readline's delete-char.
    static let endOfInputOnGivenLine: @convention(c) (Int32, Int32) -> Int32 = { count, key in
        let line = String(cString: llmster_rl_line_buffer())
        guard let given = state.withLock({ $0.given }), line == given else { return rl_delete(count, key) }
        state.withLock { $0.endsInput = true }
        return rl_newline(1, 10)
    }

    /// Alt-Enter and Ctrl-J: a newline in the message instead of sending it.
    static let insertNewline: @convention(c) (Int32, Int32) -> Int32 = { _, _ in
        rl_insert_text("\n")
        return 0
    }

    /// Ctrl-X Ctrl-E: the line goes to a private temporary file, `$VISUAL`/`$EDITOR` edits it, the result comes back.
    static let editInEditor: @convention(c) (Int32, Int32) -> Int32 = { _, _ in
        let text = expandingPastes(String(cString: llmster_rl_line_buffer()))
        let path = NSTemporaryDirectory() + "llmster-edit-\(getpid()).md"
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        else {
            rl_ding()
            return 0
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        // The prompt's rows are cleared first: the line comes back edited in their place, leaving no stale prompt above.
        rl_clear_visible_line()
        rl_deprep_terminal()
        let editor = state.withLock { $0.editor }
        let status = ExternalProgram.runShell("\(editor) \"$1\"", arguments: [path])
        rl_prep_terminal(1)
        if status == 0, let edited = try? String(contentsOfFile: path, encoding: .utf8) {
            let trimmed = edited.hasSuffix("\n") ? String(edited.dropLast()) : edited
            // Taller than the screen, like a paste: readline could not redraw it without garbling the line.
            state.withLock { $0.pastes = [] }
            let shown = shown(trimmed, as: "edited")
            rl_replace_line(shown, 0)
            llmster_rl_set_point(Int32(shown.utf8.count))
        }
        rl_on_new_line()
        rl_forced_update_display()
        return 0
    }

    /// Readline's completion: commands and arguments from the completer, `/attach` paths from readline's own.
    static let complete:
        @convention(c) (UnsafePointer<CChar>?, Int32, Int32) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = {
            text, start, end in
            let word = text.map { String(cString: $0) } ?? ""
            let line = String(cString: llmster_rl_line_buffer())
            let prefix = String(decoding: Array(line.utf8.prefix(Int(start))), as: UTF8.self)
            guard let completer = state.withLock({ $0.completer }) else { return nil }
            let quote = llmster_rl_completion_quote_character()
            let request = CompletionRequest(
                before: prefix, word: word, quote: quote == 0 ? nil : Character(UnicodeScalar(UInt8(quote))))
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
