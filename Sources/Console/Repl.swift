import Chat
import Foundation
import Library
import LMStudio
import Synchronization
import TerminalMarkdown

/// The interactive chat REPL.
enum Repl {
    /// Runs the REPL until the user quits; returns the exit status.
    static func run(context: CommandContext) async -> Int32 {
        let session: ChatSession
        do { session = try context.session() } catch {
            context.warn(String(describing: error))
            return App.exitCode(for: error)
        }
        let repl = ReplSession(context: context, chat: session)
        return await repl.run()
    }
}

/// Routes signals to whatever the REPL is doing: a streaming reply is cancelled, the prompt is woken.
final class SignalRouter: Sendable {
    private struct State {
        var reply: Task<SavedReply, any Error>?
        var resize: (@Sendable () -> Void)?
        var signal: Int32?
    }
    private let state = Mutex(State())
    let editor: LineEditor?

    init(editor: LineEditor?) { self.editor = editor }

    /// Handles one signal.
    func receive(_ signal: Int32) {
        let (reply, resize) = state.withLock { state in
            if state.reply != nil, signal != SIGWINCH, signal != SIGINT, state.signal == nil { state.signal = signal }
            return (state.reply, state.resize)
        }
        if let reply {
            if signal == SIGWINCH { resize?() } else { reply.cancel() }
            return
        }
        guard let editor else {
            if signal != SIGWINCH { exit(SignalTrap.exitStatus(for: signal)) }
            return
        }
        switch signal {
        case SIGINT: editor.wake(UInt8(ascii: "i"))
        case SIGTERM: editor.wake(UInt8(ascii: "t"))
        case SIGHUP: editor.wake(UInt8(ascii: "h"))
        default: editor.wake(UInt8(ascii: "w"))
        }
    }

    /// Sends signals to `reply` until it ends; returns SIGTERM or SIGHUP when one arrived meanwhile.
    func streaming(_ reply: Task<SavedReply, any Error>, resize: @escaping @Sendable () -> Void) async throws -> (SavedReply, Int32?) {
        state.withLock {
            $0.reply = reply
            $0.resize = resize
            $0.signal = nil
        }
        defer { state.withLock { $0.reply = nil; $0.resize = nil } }
        let saved = try await reply.value
        return (saved, state.withLock { $0.signal })
    }
}
