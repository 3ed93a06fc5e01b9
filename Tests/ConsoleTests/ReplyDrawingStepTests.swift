import Chat
@testable import Console
import Testing

/// A terminal reply draws a bounded step of new text per update, all of it at the end, and nothing new once cancelled.
struct ReplyDrawingStepTests {
    let step = ReplyDisplay.renderStepBytes

    @Test func streamingDrawsAtMostOneStepEndingAfterALine() {
        let answer = String(repeating: "line of text\n", count: step / 13 * 3)
        let drawn = ReplyDisplay.drawablePrefix(of: answer, drawn: 100, ending: nil)
        #expect(drawn.utf8.count <= 100 + step)
        #expect(drawn.utf8.count > step / 2)
        #expect(drawn.hasSuffix("\n"))
        #expect(answer.hasPrefix(drawn))
    }

    @Test func aCutWithoutLineEndStaysOnACharacterBoundary() {
        let answer = String(repeating: "日本語🙂", count: step)
        let drawn = ReplyDisplay.drawablePrefix(of: answer, drawn: 0, ending: nil)
        #expect(drawn.utf8.count <= step && drawn.utf8.count > step - 4)
        #expect(answer.hasPrefix(drawn))
        #expect(!drawn.contains("\u{FFFD}"))
    }

    @Test func cancelledDrawsNothingNewAndTheEndDrawsEverything() {
        let answer = String(repeating: "x", count: 3 * step)
        #expect(ReplyDisplay.drawablePrefix(of: answer, drawn: 10, ending: .cancelled).utf8.count == 10)
        #expect(ReplyDisplay.drawablePrefix(of: answer, drawn: 10, ending: .completed) == answer)
        #expect(ReplyDisplay.drawablePrefix(of: answer, drawn: 10, ending: .interrupted("lost")) == answer)
        #expect(ReplyDisplay.drawablePrefix(of: "short", drawn: 0, ending: nil) == "short")
    }
}
