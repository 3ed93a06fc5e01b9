import Chat
import Foundation
import LMStudio
import Library
import Synchronization
import TerminalMarkdown

/// The interactive chat REPL.
enum Repl {
    /// Runs the REPL until the user quits, on `conversationId` or else with `model` chosen; returns the exit status.
    ///
    /// `chat` is the session that resolved them, if any (else one is opened).
    @ReplActor static func run(
        context: CommandContext, chat: ChatSession? = nil, conversationId: String? = nil,
        model: String? = nil
    ) async -> Int32 {
        let session: ChatSession
        do { session = try chat ?? context.session() } catch {
            context.warn(String(describing: error))
            return App.exitCode(for: error)
        }
        let repl = ReplSession(context: context, chat: session)
        if let conversationId { await repl.switchTo(conversationId) } else { repl.pendingModel = model }
        return await repl.run()
    }
}
