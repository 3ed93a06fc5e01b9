import Chat
import Foundation
import Synchronization

/// Routes signals to whatever the REPL is doing: a streaming reply or a command's child process is cancelled, the
/// prompt is woken.
final class SignalRouter: Sendable {
    private struct State {
        var reply: Task<SavedReply, any Error>?
        var resize: (@Sendable () -> Void)?
        /// Cancels the work of a running slash command that can be stopped (`/run`).
        var cancelCommand: (@Sendable () -> Void)?
        var signal: Int32?
        var atPrompt = false
        /// A signal that came between the prompt and the reply's start; it applies to that reply.
        var pending: Int32?
    }
    private let state = Mutex(State())
    /// The prompt to wake; nil when input is piped (a signal then ends the process).
    let editor: LineEditor?

    /// Creates a router that wakes `editor` at the prompt.
    init(editor: LineEditor?) { self.editor = editor }

    /// Handles one signal.
    func receive(_ signal: Int32) {
        let (reply, resize, atPrompt, cancelCommand) = state.withLock { state in
            if state.reply != nil, signal != SIGWINCH, signal != SIGINT, state.signal == nil { state.signal = signal }
            // Ctrl-Z is acted on at once (below), never kept for the reply that follows.
            if state.reply == nil, !state.atPrompt, signal != SIGWINCH, signal != SIGTSTP, state.pending == nil {
                state.pending = signal
            }
            // Woken under the lock: `setAtPrompt(false)` then finds every wake-up its read did not take.
            if state.reply == nil, state.atPrompt || signal == SIGWINCH, let editor {
                editor.wake(Self.wakeReason(for: signal))
            }
            return (state.reply, state.resize, state.atPrompt, state.atPrompt ? nil : state.cancelCommand)
        }
        if let cancelCommand, [SIGINT, SIGTERM, SIGHUP].contains(signal) {
            // A SIGTERM or SIGHUP stays pending: the prompt after the command ends the REPL.
            cancelCommand()
            return
        }
        if signal == SIGTSTP, reply != nil || !atPrompt {
            // Outside the prompt the terminal is in its normal mode: just stop.
            TerminalFocus.shared.suspended { _ = raise(SIGSTOP) }
            return
        }
        if let reply {
            if signal == SIGWINCH { resize?() } else { reply.cancel() }
            return
        }
        guard atPrompt || signal == SIGWINCH, editor == nil else { return }
        if signal == SIGTSTP { raise(SIGSTOP) } else if signal != SIGWINCH { exit(SignalTrap.exitStatus(for: signal)) }
    }

    /// The byte that wakes the prompt for `signal` (see `LineEditor.wake`).
    private static func wakeReason(for signal: Int32) -> UInt8 {
        switch signal {
        case SIGINT: UInt8(ascii: "i")
        case SIGTERM: UInt8(ascii: "t")
        case SIGHUP: UInt8(ascii: "h")
        case SIGTSTP: UInt8(ascii: "z")
        default: UInt8(ascii: "w")
        }
    }

    /// Marks whether the prompt is waiting for input (signals wake it) or a command is running (signals wait for the reply).
    ///
    /// A signal that woke a read which had already taken its line (Ctrl-C pressed just after Enter) is still in the
    /// wake-up pipe when the read ends: it becomes pending, so it applies to the reply that line starts, and does not
    /// interrupt the next prompt instead. A SIGTERM or SIGHUP still pending when the prompt comes back (it came
    /// during a command) wakes that prompt, which then ends the REPL.
    func setAtPrompt(_ atPrompt: Bool) {
        let stops = state.withLock { state -> Bool in
            state.atPrompt = atPrompt
            defer { if atPrompt { state.pending = nil } }
            guard let editor else { return false }
            if atPrompt {
                if let pending = state.pending, pending == SIGTERM || pending == SIGHUP {
                    editor.wake(Self.wakeReason(for: pending))
                }
                return false
            }
            let unread = editor.takeWakeReasons()
            if unread.contains(UInt8(ascii: "w")) { editor.wake(UInt8(ascii: "w")) }
            let signals: [(UInt8, Int32)] = [
                (UInt8(ascii: "t"), SIGTERM), (UInt8(ascii: "h"), SIGHUP), (UInt8(ascii: "i"), SIGINT)
            ]
            state.pending = signals.first { unread.contains($0.0) }?.1
            return unread.contains(UInt8(ascii: "z"))
        }
        if stops { TerminalFocus.shared.suspended { _ = raise(SIGSTOP) } }
    }

    /// Cancels `work` on Ctrl-C, SIGTERM or SIGHUP (or one that came since the line was read) until it ends; a
    /// question it asks meanwhile gets its signals as any prompt does.
    func interrupting<Value: Sendable>(_ work: Task<Value, any Error>) async throws -> Value {
        let pending = state.withLock { state in
            state.cancelCommand = { work.cancel() }
            return state.pending
        }
        if pending != nil { work.cancel() }
        defer { state.withLock { $0.cancelCommand = nil } }
        return try await work.value
    }

    /// The SIGTERM or SIGHUP that stopped the reply streaming now, if one did (the reason its end says).
    var replyStopSignal: Int32? { state.withLock { $0.reply != nil ? $0.signal : nil } }

    /// Sends signals to `reply` until it ends; returns how it ended, with SIGTERM or SIGHUP when one arrived meanwhile
    /// (whether the reply was saved or its turn not sent: the REPL must end either way).
    func streaming(_ reply: Task<SavedReply, any Error>, resize: @escaping @Sendable () -> Void) async -> (
        Result<SavedReply, any Error>, Int32?
    ) {
        let pending = state.withLock { state in
            state.reply = reply
            state.resize = resize
            state.signal = state.pending == SIGINT ? nil : state.pending
            defer { state.pending = nil }
            return state.pending
        }
        if pending != nil { reply.cancel() }
        defer {
            state.withLock {
                $0.reply = nil
                $0.resize = nil
            }
        }
        let result = await reply.result
        return (result, state.withLock { $0.signal })
    }
}
