import Chat
import TestSupport
import Testing

@testable import LMStudio

/// The contract between the reply's accumulator and the stream's text digests (both follow `ReplyPartBoundaries`):
/// whatever the events, each segment the digests keep is exactly one text part of the reply, in order, so a
/// `chat.end` text confirmed against a segment is found at the start of a part.
@Suite struct ReplyPartBoundaryContractTests {
    /// Every kind of chat event. The two exhaustive switches below stop a new kind from compiling until it has
    /// samples here.
    enum Kind: CaseIterable {
        case chatStart, modelLoadStart, modelLoadProgress, modelLoadEnd, promptProcessingStart,
            promptProcessingProgress,
            promptProcessingEnd, reasoningStart, reasoningDelta, reasoningEnd, toolCallStart, toolCallName,
            toolCallArguments,
            toolCallSuccess, toolCallFailure, messageStart, messageDelta, messageEnd, error, chatEnd, unreadable
    }

    static func kind(of event: ChatEvent) -> Kind {
        switch event {
        case .chatStart: .chatStart
        case .modelLoadStart: .modelLoadStart
        case .modelLoadProgress: .modelLoadProgress
        case .modelLoadEnd: .modelLoadEnd
        case .promptProcessingStart: .promptProcessingStart
        case .promptProcessingProgress: .promptProcessingProgress
        case .promptProcessingEnd: .promptProcessingEnd
        case .reasoningStart: .reasoningStart
        case .reasoningDelta: .reasoningDelta
        case .reasoningEnd: .reasoningEnd
        case .toolCallStart: .toolCallStart
        case .toolCallName: .toolCallName
        case .toolCallArguments: .toolCallArguments
        case .toolCallSuccess: .toolCallSuccess
        case .toolCallFailure: .toolCallFailure
        case .messageStart: .messageStart
        case .messageDelta: .messageDelta
        case .messageEnd: .messageEnd
        case .error: .error
        case .chatEnd: .chatEnd
        case .unreadable: .unreadable
        }
    }

    /// Events of `kind`: deltas with and without text, tool-call events naming either of two tools (or, for a
    /// failure, none), and a `chat.end` without output, which keeps the streamed parts.
    static func samples(of kind: Kind) -> [ChatEvent] {
        let tools = ["read", "write"]
        switch kind {
        case .chatStart: return [.chatStart(modelInstanceId: "acme/tiny-1b")]
        case .modelLoadStart: return [.modelLoadStart(modelInstanceId: nil)]
        case .modelLoadProgress: return [.modelLoadProgress(0.5)]
        case .modelLoadEnd: return [.modelLoadEnd(loadTimeSeconds: 1)]
        case .promptProcessingStart: return [.promptProcessingStart]
        case .promptProcessingProgress: return [.promptProcessingProgress(0.5)]
        case .promptProcessingEnd: return [.promptProcessingEnd]
        case .reasoningStart: return [.reasoningStart]
        case .reasoningDelta: return [.reasoningDelta("think "), .reasoningDelta("")]
        case .reasoningEnd: return [.reasoningEnd]
        case .toolCallStart: return tools.map { .toolCallStart(tool: $0, provider: nil) }
        case .toolCallName: return tools.map { .toolCallName(tool: $0) }
        case .toolCallArguments:
            return tools.map { .toolCallArguments(tool: $0, arguments: .object([:]), provider: nil) }
        case .toolCallSuccess:
            return tools.map { .toolCallSuccess(tool: $0, arguments: .object([:]), output: "done", provider: nil) }
        case .toolCallFailure:
            return [.toolCallFailure(reason: "no such tool", metadata: nil)]
                + tools.map { .toolCallFailure(reason: "refused", metadata: ToolCallFailureMetadata(toolName: $0)) }
        case .messageStart: return [.messageStart]
        case .messageDelta: return [.messageDelta("word "), .messageDelta("")]
        case .messageEnd: return [.messageEnd]
        case .error: return [.error(APIErrorPayload(message: "overloaded"))]
        case .chatEnd: return [.chatEnd(ChatResult())]
        case .unreadable: return [.unreadable(reason: "invalid escape")]
        }
    }

    static let allSamples = Kind.allCases.flatMap(samples(of:))

    /// A text part's length and digest, as a segment of the digests keeps them.
    struct Piece: Equatable, CustomStringConvertible {
        let count: Int
        let digest: Int
        var description: String { "\(count) bytes" }
    }

    /// The reply's text parts after `events`, and the digests' segments, in order.
    static func split(_ events: [ChatEvent]) -> (parts: [Piece], segments: [Piece]) {
        var accumulator = ReplyAccumulator()
        var digests = StreamedTextDigests()
        for event in events {
            accumulator.apply(event)
            digests.observe(event)
        }
        let parts = accumulator.state.items.compactMap { item -> Piece? in
            switch item {
            case .message(var text), .reasoning(var text):
                return text.withUTF8 { Piece(count: $0.count, digest: TextDigest.of($0)) }
            case .toolCall:
                return nil
            }
        }
        return (parts, digests.segments.map { Piece(count: $0.count, digest: $0.digest) })
    }

    @Test func everyEventSplitsBothTheSameWayAfterEachKindOfPart() {
        for kind in Kind.allCases {
            for sample in Self.samples(of: kind) {
                #expect(Self.kind(of: sample) == kind)
                let befores: [[ChatEvent]] = [
                    [], [.messageDelta("one ")], [.reasoningDelta("why ")], [.messageStart],
                    [.toolCallStart(tool: "read", provider: nil)],
                    [.toolCallStart(tool: "read", provider: nil), .messageDelta("while reading ")],
                    [.messageDelta("one "), .toolCallStart(tool: "write", provider: nil), .messageDelta("two ")]
                ]
                let after: [ChatEvent] = [.messageDelta("then "), .reasoningDelta("hmm "), .messageDelta("end")]
                for before in befores {
                    let events = before + [sample] + after
                    let (parts, segments) = Self.split(events)
                    #expect(segments == parts, "\(events)")
                }
            }
        }
    }

    /// Seeded sequences of every sample, in any order and number.
    @Test func randomStreamsSplitBothTheSameWay() {
        var generator = SeededGenerator(seed: 0x5E_6A_27)
        for _ in 0..<4000 {
            let events = (0..<Int.random(in: 1...18, using: &generator)).map { _ in
                Self.allSamples.randomElement(using: &generator)!
            }
            let (parts, segments) = Self.split(events)
            #expect(segments == parts, "\(events)")
        }
    }
}
