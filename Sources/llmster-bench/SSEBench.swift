import Foundation
import LMStudio

/// Benchmark section `sse`: a ~10 MB chat stream parsed whole, in 4 KiB and 1-byte chunks, and decoded to chat events.
func sseBench() async throws {
    let stream = syntheticChatStream(approximateBytes: 10 << 20)
    let megabytes = Double(stream.count) / 1_048_576
    print("stream: \(String(format: "%.1f", megabytes)) MB")

    func measure(_ label: String, _ run: () throws -> Int) rethrows {
        let start = ContinuousClock.now
        let events = try run()
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        let padded = label.padding(toLength: 30, withPad: " ", startingAt: 0)
        print("\(padded)\(String(format: "%8.1f MB/s  %7d events  %.3f s", megabytes / seconds, events, seconds))")
    }

    try measure("parse, fed whole") {
        var parser = SSEParser()
        return try parser.feed(stream).count
    }
    try measure("parse, 4 KiB chunks") {
        var parser = SSEParser()
        var count = 0
        for start in stride(from: 0, to: stream.count, by: 4096) {
            count += try parser.feed(stream[start..<min(start + 4096, stream.count)]).count
        }
        return count
    }
    try measure("parse, 1-byte chunks") {
        var parser = SSEParser()
        var count = 0
        for index in stream.indices {
            count += try parser.feed(stream[index...index]).count
        }
        return count
    }
    try measure("parse + decode ChatEvents") {
        var parser = SSEParser()
        let decoder = ChatEventDecoder()
        return try parser.feed(stream).compactMap(decoder.decode).count
    }
}

/// A realistic `/api/v1/chat` stream: a reasoning phase, a tool call, then many small answer deltas mixing ASCII and multi-byte UTF-8.
private func syntheticChatStream(approximateBytes: Int) -> [UInt8] {
    let pieces = [
        "The", " quick", " brown", " fox", " — ", " héllo", " wörld", " 日本語", " の", " テキスト", " 👩‍💻", " code", "\\n\\n",
        "```swift", " let", " x", " =", " 42", "```", ".", ","
    ]
    var text = ""
    func event(_ name: String, _ json: String) {
        text += "event: \(name)\ndata: \(json)\n\n"
    }
    event("chat.start", #"{"type":"chat.start","model_instance_id":"qwen/qwen3-4b"}"#)
    event("reasoning.start", #"{"type":"reasoning.start"}"#)
    for index in 0..<2000 {
        event("reasoning.delta", #"{"type":"reasoning.delta","content":"\#(pieces[index % pieces.count])"}"#)
    }
    event("reasoning.end", #"{"type":"reasoning.end"}"#)
    event(
        "tool_call.start",
        #"{"type":"tool_call.start","tool":"search","provider_info":{"type":"plugin","plugin_id":"mcp/web"}}"#)
    event(
        "tool_call.success",
        #"{"type":"tool_call.success","tool":"search","arguments":{"q":"swift"},"output":"[]","provider_info":{"type":"plugin","plugin_id":"mcp/web"}}"#
    )
    event("message.start", #"{"type":"message.start"}"#)
    var index = 0
    while text.utf8.count < approximateBytes {
        event("message.delta", #"{"type":"message.delta","content":"\#(pieces[index % pieces.count])"}"#)
        index += 1
        if index % 500 == 0 { text += ": keep-alive\n\n" }
    }
    event("message.end", #"{"type":"message.end"}"#)
    event(
        "chat.end",
        #"{"type":"chat.end","result":{"model_instance_id":"qwen/qwen3-4b","output":[],"response_id":"resp_1"}}"#)
    return Array(text.utf8)
}
