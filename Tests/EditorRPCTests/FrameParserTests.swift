import EditorRPC
import Testing

@Suite struct FrameParserTests {
    static let lines = "{\"a\":1}\n\n  \n{\"b\":\"é ✓ 🙂\"}\r\n{\"c\":[1,2]}\n"
    static let expected: [Frame] = [
        .message(Array("{\"a\":1}".utf8)), .message(Array("{\"b\":\"é ✓ 🙂\"}".utf8)),
        .message(Array("{\"c\":[1,2]}".utf8))
    ]

    @Test func jsonLinesGiveTheSameMessagesWhereverTheStreamIsSplit() {
        let bytes = Array(Self.lines.utf8)
        for split in 0...bytes.count {
            var parser = FrameParser(framing: .jsonLines)
            let frames = parser.feed(bytes[..<split]) + parser.feed(bytes[split...])
            #expect(frames == Self.expected, "split at \(split)")
        }
        var parser = FrameParser(framing: .jsonLines)
        #expect(bytes.flatMap { parser.feed([$0]) } == Self.expected, "one byte at a time")
    }

    @Test func lspFramingGivesTheSameMessagesWhereverTheStreamIsSplit() {
        let bodies = ["{\"a\":1}", "{\"b\":\"é ✓ 🙂\"}", "{\"c\":[1,2]}"]
        let bytes =
            bodies.flatMap { Framing.lsp.frame($0) }
            + Array("Content-Type: application/vscode-jsonrpc\r\ncontent-length: 2\r\n\r\n{}".utf8)
        let expected = bodies.map { Frame.message(Array($0.utf8)) } + [.message(Array("{}".utf8))]
        for split in 0...bytes.count {
            var parser = FrameParser(framing: .lsp)
            #expect(parser.feed(bytes[..<split]) + parser.feed(bytes[split...]) == expected, "split at \(split)")
        }
        var parser = FrameParser(framing: .lsp)
        #expect(bytes.flatMap { parser.feed([$0]) } == expected, "one byte at a time")
    }

    @Test func anOversizedLineIsReportedOnceAndTheNextLineStillParses() {
        let bytes = Array((String(repeating: "x", count: 100) + "\n{\"ok\":true}\n").utf8)
        for split in [0, 5, 50, 99, 100, 101, 105] {
            var parser = FrameParser(framing: .jsonLines, limit: 16)
            let frames = parser.feed(bytes[..<split]) + parser.feed(bytes[split...])
            #expect(frames == [.oversized(limit: 16), .message(Array("{\"ok\":true}".utf8))], "split at \(split)")
        }
    }

    @Test func anOversizedLSPBodyIsSkipped() {
        let bytes = Framing.lsp.frame(String(repeating: "y", count: 40)) + Framing.lsp.frame("{}")
        var parser = FrameParser(framing: .lsp, limit: 16)
        #expect(bytes.flatMap { parser.feed([$0]) } == [.oversized(limit: 16), .message(Array("{}".utf8))])
    }

    @Test func lspHeaderWithoutLengthIsReportedAndParsingResumes() {
        var parser = FrameParser(framing: .lsp)
        let frames = parser.feed(Array("X-Junk: 1\r\n\r\n".utf8) + Framing.lsp.frame("{}"))
        #expect(frames == [.badHeader("no valid Content-Length header"), .message(Array("{}".utf8))])
    }

    /// Every frame `bytes` gives when split at `split`, the end of input included.
    static func frames(_ bytes: [UInt8], framing: Framing, split: Int, limit: Int = FrameParser.defaultLimit) -> [Frame]
    {
        var parser = FrameParser(framing: framing, limit: limit)
        return parser.feed(bytes[..<split]) + parser.feed(bytes[split...]) + parser.finish()
    }

    @Test func anUnterminatedLastLineIsAMessageAtTheEndOfInput() {
        let bytes = Array("{\"a\":1}\n{\"b\":2}".utf8)
        for split in 0...bytes.count {
            #expect(
                Self.frames(bytes, framing: .jsonLines, split: split) == [
                    .message(Array("{\"a\":1}".utf8)), .message(Array("{\"b\":2}".utf8))
                ],
                "split at \(split)")
        }
        var blank = FrameParser(framing: .jsonLines)
        #expect(blank.feed(Array("{}\n  \r".utf8)) + blank.finish() == [.message(Array("{}".utf8))])
    }

    @Test(arguments: [3, 8, 40, 1_000, 9_223_372_036_854_775_807])
    func aWrongContentLengthIsReportedAndTheNextMessageStillArrives(announced: Int) {
        let bytes = Array("Content-Length: \(announced)\r\n\r\n{\"a\":1}".utf8) + Framing.lsp.frame("{\"next\":true}")
        for split in 0...bytes.count {
            let frames = Self.frames(bytes, framing: .lsp, split: split, limit: 100)
            #expect(frames.last == .message(Array("{\"next\":true}".utf8)), "split at \(split): \(frames)")
            #expect(frames.count >= 2, "the bad message is reported")
        }
    }

    @Test func aContentLengthTooLargeForAnIntIsOversizedAndParsingResumes() {
        let bytes = Array("Content-Length: 99999999999999999999999\r\n\r\n{}".utf8) + Framing.lsp.frame("{}")
        for split in 0...bytes.count {
            #expect(
                Self.frames(bytes, framing: .lsp, split: split) == [
                    .oversized(limit: FrameParser.defaultLimit), .message(Array("{}".utf8))
                ],
                "split at \(split)")
        }
    }

    @Test func headerTextInsideAJSONStringIsPartOfTheMessage() {
        let body = "{\"text\":\"send Content-Length: 12 then a blank line\"}"
        let bytes = Framing.lsp.frame(body) + Framing.lsp.frame("{}")
        for split in 0...bytes.count {
            #expect(
                Self.frames(bytes, framing: .lsp, split: split) == [
                    .message(Array(body.utf8)), .message(Array("{}".utf8))
                ], "split at \(split)")
        }
    }

    @Test func theHeaderNameInAnotherHeadersValueDoesNotHideTheRealOne() {
        var parser = FrameParser(framing: .lsp)
        #expect(
            parser.feed(Array("Content-Length: 2\r\nX-Note: see content-length\r\n\r\n{}".utf8)) == [
                .message(Array("{}".utf8))
            ])
    }

    @Test func anLSPMessageCutShortByTheEndOfInputIsReported() {
        var parser = FrameParser(framing: .lsp)
        #expect(parser.feed(Array("Content-Length: 10\r\n\r\n{}".utf8)).isEmpty)
        guard case .badHeader(let detail)? = parser.finish().first else {
            Issue.record("nothing reported")
            return
        }
        #expect(detail.contains("ended"))
    }
}
