import Chat
import EditorRPC
import Foundation
import LMStudio
import Synchronization
import Testing

/// The server driven with raw bytes, its answers read as the bytes it wrote.
@Suite struct RawFramingTests {
    /// Serves `input` (then end of input) without a session and returns everything written.
    static func serve(_ input: String, framing: Framing = .jsonLines) async -> String {
        let written = Mutex<[UInt8]>([])
        let server = RPCServer(
            framing: framing, version: "test", configuration: Configuration(), configurationPath: "/nonexistent/config",
            makeSession: { _ in throw RPCError.invalidParams("no session in this test") },
            output: { bytes in written.withLock { $0 += bytes } })
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        continuation.yield(Array(input.utf8))
        continuation.finish()
        await server.run(input: stream)
        return String(decoding: written.withLock { $0 }, as: UTF8.self)
    }

    @Test func aLastRequestWithoutANewlineIsAnsweredAtEndOfInput() async {
        let output = await Self.serve(#"{"jsonrpc":"2.0","id":7,"method":"models/list"}"#)
        #expect(output.contains(#""id":7"#), "\(output)")
        #expect(output.contains("not_initialized"))
    }

    @Test(arguments: ["9007199254740993", "12345678901234567890123", "-0", "1.50", "1e3"])
    func numericIdsComeBackExactlyAsSent(id: String) async {
        let output = await Self.serve(#"{"jsonrpc":"2.0","id":"# + id + #","method":"models/list"}"# + "\n")
        #expect(output.contains(#""id":"# + id + ","), "\(output)")
    }

    @Test func stringIdsComeBackAsTheSameString() async {
        let output = await Self.serve(#"{"id" : "a\"b" ,"jsonrpc":"2.0","method":"models/list"}"# + "\n")
        #expect(output.contains(#""id":"a\"b""#), "\(output)")
    }

    @Test func deepNestingIsReportedAsTooDeepWithTheRequestId() async {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let output = await Self.serve(#"{"jsonrpc":"2.0","id":3,"method":"x","params":{"a":"# + deep + "}}\n")
        #expect(output.contains("too_deep"), "\(output)")
        #expect(output.contains("nest"))
        #expect(!output.contains("not valid JSON"))
        #expect(output.contains(#""id":3"#))
    }

    /// Brackets in a string, after an escaped quote too, are text: the message is read, not refused as too deep,
    /// and the id written after that string is still found.
    @Test func bracketsInsideAStringAreNotNesting() async {
        let brackets = String(repeating: "[", count: 600)
        let output = await Self.serve(
            #"{"jsonrpc":"2.0","method":"models/list","params":{"a":"say \" "# + brackets + #""},"id":4}"# + "\n")
        #expect(!output.contains("too_deep"), "\(output)")
        #expect(output.contains(#""id":4"#), "\(output)")
    }

    @Test func aWrongContentLengthDoesNotLoseTheNextMessage() async {
        let good = #"{"jsonrpc":"2.0","id":2,"method":"models/list"}"#
        for announced in [5, 60, 500, 9_223_372_036_854_775_807] {
            let input =
                "Content-Length: \(announced)\r\n\r\n" + #"{"jsonrpc":"2.0","id":1,"method":"models/list"}"#
                + "Content-Length: \(good.utf8.count)\r\n\r\n" + good
            let output = await Self.serve(input, framing: .lsp)
            #expect(output.contains(#""id":2"#), "Content-Length \(announced): \(output)")
        }
    }

    @Test func aHugeContentLengthIsRefusedAsTooLarge() async {
        let output = await Self.serve("Content-Length: 9223372036854775807\r\n\r\n{}", framing: .lsp)
        #expect(output.contains("too_large"), "\(output)")
    }
}
