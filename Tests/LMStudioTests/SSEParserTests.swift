import Testing

@testable import LMStudio

/// A recorded `/api/v1/chat` stream: CRLF line ends, keep-alive comments, `id:`/`retry:`, a multi-line data event, multi-byte UTF-8, `[DONE]`.
let recordedChatStream = [
    ": keep-alive",
    "retry: 3000",
    "event: chat.start",
    #"data: {"type":"chat.start","model_instance_id":"qwen/qwen3-4b"}"#,
    "",
    "event: reasoning.start",
    #"data: {"type":"reasoning.start"}"#,
    "",
    "id: 7",
    "event: reasoning.delta",
    #"data: {"type":"reasoning.delta","content":"Let me think… "}"#,
    "",
    ":",
    "event: reasoning.end",
    #"data: {"type":"reasoning.end"}"#,
    "",
    "event: tool_call.start",
    #"data: {"type":"tool_call.start","tool":"browser_navigate","provider_info":{"type":"plugin","plugin_id":"mcp/playwright"}}"#,
    "",
    "event: tool_call.arguments",
    #"data: {"type":"tool_call.arguments","tool":"browser_navigate","arguments":{"url":"https://example.com"},"#,
    #"data:  "provider_info":{"type":"plugin","plugin_id":"mcp/playwright"}}"#,
    "",
    "event: tool_call.success",
    #"data: {"type":"tool_call.success","tool":"browser_navigate","arguments":{"url":"https://example.com"},"output":"[{\"type\":\"text\",\"text\":\"ok\"}]","provider_info":{"type":"plugin","plugin_id":"mcp/playwright"}}"#,
    "",
    "event: message.start",
    #"data: {"type":"message.start"}"#,
    "",
    "event: message.delta",
    #"data: {"type":"message.delta","content":"héllo 日本 👩‍💻"}"#,
    "",
    "event: message.delta",
    #"data: {"type":"message.delta","content":"!\n"}"#,
    "",
    "event: message.end",
    #"data: {"type":"message.end"}"#,
    "",
    "event: chat.end",
    #"data: {"type":"chat.end","result":{"model_instance_id":"qwen/qwen3-4b","output":[{"type":"message","content":"héllo 日本 👩‍💻!\n"}],"stats":{"input_tokens":12,"total_output_tokens":5,"tokens_per_second":41.5},"response_id":"resp_abc"}}"#,
    "",
    "data: [DONE]",
    "",
    ""
].joined(separator: "\r\n")

/// Feeds `chunks` in order and collects every event.
func parse(_ chunks: [ArraySlice<UInt8>], maxEventBytes: Int = 16 << 20) throws -> [SSEEvent] {
    var parser = SSEParser(maxEventBytes: maxEventBytes)
    var events: [SSEEvent] = []
    for chunk in chunks { events += try parser.feed(chunk) }
    return events + parser.finish()
}

/// `bytes` cut at the given offsets.
func split(_ bytes: [UInt8], at offsets: [Int]) -> [ArraySlice<UInt8>] {
    var chunks: [ArraySlice<UInt8>] = []
    var start = 0
    for offset in offsets.sorted() {
        chunks.append(bytes[start..<offset])
        start = offset
    }
    chunks.append(bytes[start...])
    return chunks
}

struct SSEParserTests {
    let bytes = Array(recordedChatStream.utf8)

    @Test func recordedStreamYieldsEachEventWithNameAndJoinedData() throws {
        let events = try parse([bytes[...]])
        #expect(events.count == 13)
        #expect(
            events.first
                == SSEEvent(name: "chat.start", data: #"{"type":"chat.start","model_instance_id":"qwen/qwen3-4b"}"#))
        #expect(
            events[5].data == """
                {"type":"tool_call.arguments","tool":"browser_navigate","arguments":{"url":"https://example.com"},
                 "provider_info":{"type":"plugin","plugin_id":"mcp/playwright"}}
                """)
        #expect(events[8].data.contains("héllo 日本 👩‍💻"))
        #expect(events.last == SSEEvent(name: nil, data: "[DONE]"))
    }

    @Test func everySplitPointGivesTheSameEvents() throws {
        let whole = try parse([bytes[...]])
        for offset in 0...bytes.count {
            #expect(try parse(split(bytes, at: [offset])) == whole, "split at \(offset)")
        }
    }

    /// A line of several MiB arriving in small chunks (kept in pieces, joined once) is dispatched exactly, data and name.
    @Test(arguments: [1, 4093, 65_536, 1 << 20])
    func aLongLineInManyChunksIsJoinedExactly(chunk: Int) throws {
        let payload = (0..<(3 << 20)).map { UInt8(ascii: "a") + UInt8($0 % 26) }
        let stream = Array("event: chat.end\ndata: ".utf8) + payload + Array("\r\n\r\ndata: next\n\n".utf8)
        var parser = SSEParser()
        var events: [SSEEvent] = []
        for start in stride(from: 0, to: stream.count, by: chunk) {
            events += try parser.feed(stream[start..<min(start + chunk, stream.count)])
        }
        #expect(
            events == [
                SSEEvent(name: "chat.end", data: String(decoding: payload, as: UTF8.self)), SSEEvent(data: "next")
            ])
    }

    @Test func oneByteChunksGiveTheSameEvents() throws {
        let whole = try parse([bytes[...]])
        #expect(try parse(bytes.indices.map { bytes[$0...$0] }) == whole)
    }

    @Test(arguments: ["\n", "\r\n", "\r"])
    func everyPairOfSplitPointsGivesTheSameEvents(lineEnd: String) throws {
        let small = Array(
            ["event: a", "data: é1", "data:2", "", ": c", "data: 👩‍💻", "", ""].joined(separator: lineEnd).utf8)
        let whole = try parse([small[...]])
        #expect(whole == [SSEEvent(name: "a", data: "é1\n2"), SSEEvent(data: "👩‍💻")])
        for first in 0...small.count {
            for second in first...small.count {
                #expect(try parse(split(small, at: [first, second])) == whole, "split at \(first), \(second)")
            }
        }
    }

    @Test func byteOrderMarkOpeningTheStreamIsIgnoredAtAnySplit() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("data: a\n\n".utf8)
        for offset in 0...bytes.count {
            #expect(try parse(split(bytes, at: [offset])) == [SSEEvent(data: "a")], "split at \(offset)")
        }
        #expect(
            try parse([([0xEF, 0xBB] + Array("\ndata: b\n\n".utf8))[...]]) == [SSEEvent(data: "b")],
            "a partial mark is a line of its own")
    }

    @Test func carriageReturnEndingAChunkThenLineFeedIsOneLineEnd() throws {
        var parser = SSEParser()
        #expect(try parser.feed(Array("data: a\r".utf8)).isEmpty)
        #expect(try parser.feed(Array("\ndata: b\r\n\r\n".utf8)) == [SSEEvent(data: "a\nb")])
    }

    @Test func eventOverTheLimitThrowsAtAnySplit() throws {
        let oversize = Array(("data: " + String(repeating: "x", count: 100) + "\n\n").utf8)
        for offset in 0...oversize.count {
            #expect(throws: SSEError.eventTooLarge(limit: 64)) {
                try parse(split(oversize, at: [offset]), maxEventBytes: 64)
            }
        }
        #expect(
            try parse([Array("data: \(String(repeating: "x", count: 58))\n\n".utf8)[...]], maxEventBytes: 64).count == 1
        )
    }

    @Test func parserStaysFailedAfterAnOversizeEvent() throws {
        var parser = SSEParser(maxEventBytes: 8)
        #expect(throws: SSEError.self) { try parser.feed(Array("data: 0123456789".utf8)) }
        #expect(throws: SSEError.eventTooLarge(limit: 8)) { try parser.feed(Array("\n\ndata: ok\n\n".utf8)) }
    }

    @Test func invalidUTF8BecomesReplacementCharacters() throws {
        let bytes: [UInt8] = Array("data: a".utf8) + [0xFF, 0xC3] + Array("b\n\n".utf8)
        #expect(try parse([bytes[...]]) == [SSEEvent(data: "a\u{FFFD}\u{FFFD}b")])
    }

    @Test func finalEventWithoutBlankLineIsNotDispatched() throws {
        var parser = SSEParser()
        #expect(try parser.feed(Array("data: one\n\ndata: two\n".utf8)) == [SSEEvent(data: "one")])
        #expect(parser.finish().isEmpty)
        #expect(try parser.feed(Array("\n".utf8)).isEmpty, "finish discards the pending event")
    }

    @Test func emptyDataLineDispatchesAnEmptyEventButABareBlankLineDoesNot() throws {
        #expect(try parse([Array("\n\nevent: x\n\ndata:\n\n".utf8)[...]]) == [SSEEvent(data: "")])
    }

    @Test func fieldWithoutColonAndUnknownFieldsAreIgnored() throws {
        #expect(try parse([Array("data\nfoo: bar\nid: 3\ndata:x\n\n".utf8)[...]]) == [SSEEvent(data: "\nx")])
    }
}
