import Foundation
import Library
import Testing

/// `Message.reasoningSeconds`: the one estimate of a saved reply's reasoning time that `show` and `rpc` give.
@Suite struct ReasoningTimeTests {
    private func reply(reasoning: String, stats: String?) -> Message {
        Message(
            id: "m1", conversationId: "c1", role: .assistant, text: "Answer.", reasoning: reasoning, status: .complete,
            statsJSON: stats, createdAt: Date(), updatedAt: Date(), position: 1)
    }

    @Test func aSavedReplyReasonedForItsReasoningTokensAtItsSpeed() {
        let message = reply(
            reasoning: "Hmm.",
            stats: #"{"reasoning_output_tokens":85,"tokens_per_second":42.5,"total_output_tokens":120}"#)
        #expect(message.reasoningSeconds == 2)
    }

    @Test(
        arguments: [
            ("Hmm.", nil), ("Hmm.", #"{"tokens_per_second":42.5}"#), ("Hmm.", #"{"reasoning_output_tokens":85}"#),
            ("Hmm.", #"{"reasoning_output_tokens":85,"tokens_per_second":0}"#), ("Hmm.", "not json"), ("Hmm.", "[1]"),
            ("", #"{"reasoning_output_tokens":85,"tokens_per_second":42.5}"#)
        ] as [(String, String?)])
    func theTimeIsUnknownWithoutReasoningOrEitherFigure(reasoning: String, stats: String?) {
        #expect(reply(reasoning: reasoning, stats: stats).reasoningSeconds == nil)
    }

    @Test func theTimeLabelsTheReasoningOnlyWhenItIsOnePart() {
        let message = reply(
            reasoning: "Hmm.\n\nAh.", stats: #"{"reasoning_output_tokens":85,"tokens_per_second":42.5}"#)
        #expect(message.reasoningPartSeconds(in: [.reasoning("Hmm. Ah."), .text("Answer.")]) == 2)
        #expect(
            message.reasoningPartSeconds(in: [.reasoning("Hmm."), .text("So."), .reasoning("Ah.")]) == nil,
            "the time covers both parts, so it is neither's")
    }
}
