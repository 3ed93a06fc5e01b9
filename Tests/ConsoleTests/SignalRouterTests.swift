import Chat
import Foundation
import Testing

@testable import Console

/// Signals that land between two of the REPL's states: a read that has its line but has not ended yet, a command.
@Suite struct SignalRouterTests {
    private func router() -> (SignalRouter, LineEditor) {
        let editor = LineEditor(
            history: HistoryFile(path: FileManagerPath.temporary("history")), environment: [:],
            lineMode: true, completer: { _ in [] }, describer: { $0.map { _ in "" } })
        return (SignalRouter(editor: editor), editor)
    }

    /// Ctrl-C pressed just after Enter wakes a read that has already taken its line: the reply that line starts is
    /// cancelled, not run to its end with the next prompt interrupted instead.
    @Test(.timeLimit(.minutes(1))) func ctrlCAfterTheLineWasReadCancelsTheReplyItStarts() async throws {
        let (router, editor) = router()
        router.setAtPrompt(true)
        router.receive(SIGINT)
        router.setAtPrompt(false)
        let reply = Task<SavedReply, any Error> {
            // A reply that streams until it is cancelled.
            let endless = AsyncStream<Never> { _ in }
            for await _ in endless {}
            throw CancellationError()
        }
        // Past the time limit the reply is cancelled too, so a failure ends the test instead of hanging it.
        let (result, _) = await withTaskCancellationHandler {
            await router.streaming(reply) {}
        } onCancel: {
            reply.cancel()
        }
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(editor.takeWakeReasons().isEmpty, "the next prompt is not woken by it")
    }

    /// SIGTERM during a command (no reply to end) wakes the prompt that follows, which then ends the REPL.
    @Test func sigtermDuringACommandWakesTheNextPrompt() {
        let (router, editor) = router()
        router.receive(SIGTERM)
        router.setAtPrompt(true)
        #expect(editor.takeWakeReasons() == [UInt8(ascii: "t")])
    }
}
