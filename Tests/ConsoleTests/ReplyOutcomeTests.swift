import Chat
import LMStudio
import TerminalMarkdown
import Testing

@testable import Console

/// The end line marks a reply as the engine saves it: a server's `error` event makes it an error however the stream
/// then ended, so the screen never says "incomplete" for a reply `show` marks as an error.
struct ReplyOutcomeTests {
    static func display() -> ReplyDisplay {
        ReplyDisplay(
            rendered: false, statusOnStandardError: false, capabilities: TerminalCapabilities(isTTY: false),
            errorCapabilities: TerminalCapabilities(isTTY: false), mode: .never, reasoningLines: 3,
            modelName: "acme/tiny-1b")
    }

    @Test(arguments: [ReplyEnding.completed, .interrupted("connection lost"), .cancelled])
    func aServerErrorMarksTheReplyAnErrorHoweverItEnded(ending: ReplyEnding) async throws {
        let display = Self.display()
        var state = ReplyState()
        state.errors = [APIErrorPayload(type: "internal_error", message: "the model crashed")]
        await display.show(.ended(ReplyEnd(ending: ending, status: .error, errorMessage: nil, state: state)))
        let serverError = try #require(state.serverError)
        #expect(await display.reply.outcome == .error(serverError))
    }

    @Test func anInterruptedReplyWithoutAServerErrorIsIncomplete() async {
        let display = Self.display()
        await display.show(
            .ended(
                ReplyEnd(
                    ending: .interrupted("connection lost"), status: .incomplete, errorMessage: nil,
                    state: ReplyState())))
        #expect(await display.reply.outcome == .failed("connection lost"))
    }
}
