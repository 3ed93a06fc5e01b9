import Chat
import LMStudio
import TerminalMarkdown
import Testing

@testable import Console

/// A reply's tool call lines cost the same per call however many calls came before.
struct ReplyToolCallSummaryTests {
    /// Each call starts, gets its arguments and succeeds (three changes); only the change that finishes it makes a
    /// summary, so the summaries made grow with the number of calls, not with its square.
    @Test(arguments: [10, 100, 2000])
    func aSummaryIsMadeOncePerFinishedCall(calls: Int) async {
        let display = ReplyDisplay(
            rendered: false, statusOnStandardError: false, capabilities: TerminalCapabilities(isTTY: false),
            errorCapabilities: TerminalCapabilities(isTTY: false), mode: .never, reasoningLines: 3,
            modelName: "acme/tiny-1b")
        for index in 0..<calls {
            let arguments = JSONValue.object(["query": .string("sse \(index)")])
            await display.show(.toolCallChanged(index: index, ToolCallState(name: "search_docs")))
            await display.show(.toolCallChanged(index: index, ToolCallState(name: "search_docs", arguments: arguments)))
            await display.show(
                .toolCallChanged(
                    index: index,
                    ToolCallState(
                        name: "search_docs", arguments: arguments,
                        output: "found", status: .succeeded)))
        }
        #expect(await display.summaryCount == calls)
    }
}
