import Foundation
import Library

/// Benchmark section `library`: a 10,000-conversation, 500,000-message library (built once and kept in the
/// temporary directory; each run appends a few messages to it), then the operations a user waits for, in milliseconds.
func libraryBench() async throws {
    let shape = (folders: 20, conversations: 10_000, messagesPerConversation: 50)
    let path = NSTemporaryDirectory() + "llmster-bench-library/library.sqlite3"
    let expected = shape.conversations * shape.messagesPerConversation
    let existing = try? LibraryStore(path: path).statistics()
    if existing?.conversations != shape.conversations || (existing?.messages ?? 0) < expected {
        try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
        let started = ContinuousClock.now
        try buildBenchLibrary(at: path, shape: shape)
        print("built \(path) in \(milliseconds(ContinuousClock.now - started)) ms")
    } else {
        print("reusing \(path)")
    }

    var store = try LibraryStore(path: path)
    report("open", runs: 21) { store = try LibraryStore(path: path) }
    let statistics = try store.statistics()
    print(
        "  library: \(statistics.folders) folders, \(statistics.conversations) conversations, \(statistics.messages) messages"
    )
    let folder = try store.folders()[3]
    report("list 50 most recent in a folder") { _ = try store.conversations(folderId: folder.id, limit: 50) }
    report("list 50 most recent overall") { _ = try store.conversations(limit: 50) }
    report("most recent conversation") { _ = try store.mostRecentConversation() }
    report("FTS query, rare word (\"zephyr\")") { _ = try store.search("zephyr", limit: 20) }
    report("FTS query, two common words") { _ = try store.search("river lantern", limit: 20) }
    report("FTS query, very common word (\"the\")") { _ = try store.search("the", limit: 20) }
    report("FTS query, title match (\"topic 42\")") { _ = try store.search("topic 42", limit: 20) }
    let target = try store.conversations(folderId: folder.id, limit: 1)[0]
    report("resolve a 6-digit id prefix") { _ = try store.resolveConversation(String(target.id.prefix(6))) }
    report("load a 50-message transcript") { _ = try store.messages(conversationId: target.id) }
    var reply: Message?
    report("append a message") {
        reply = try store.appendMessage(
            conversationId: target.id, role: .assistant, MessageContent(text: "", status: .streaming))
    }
    var text = ""
    report("updateReply (streaming, growing text)") {
        text += "another sentence of a streaming reply about the river and the lantern. "
        try store.updateReply(messageId: reply!.id, MessageContent(text: text, status: .streaming))
    }
    report("statistics") { _ = try store.statistics() }
    report("recoverInterruptedReplies") { _ = try store.recoverInterruptedReplies() }
}

private func buildBenchLibrary(
    at path: String, shape: (folders: Int, conversations: Int, messagesPerConversation: Int)
) throws {
    let store = try LibraryStore(path: path)
    var random = BenchRandom(seed: 42)
    let words = """
        the a of and to in river lantern model token server reply swift library folder answer question code \
        compile memory thread actor stream search index query light mountain harbor signal kernel matrix \
        garden winter summer vector tensor prompt context window reason plan travel budget recipe music
        """.split(separator: " ").map(String.init)
    let start = Date(timeIntervalSince1970: 1_700_000_000)
    let folders = try store.transaction {
        try (0..<shape.folders).map { try store.createFolder(name: "Folder \($0)").id }
    }
    let batch = 500
    for first in stride(from: 0, to: shape.conversations, by: batch) {
        try store.transaction {
            for index in first..<min(first + batch, shape.conversations) {
                let created = start.addingTimeInterval(Double(index) * 600)
                let folderId: Int64? = index % 5 == 0 ? nil : folders[index % folders.count]
                let conversation = try store.createConversation(
                    title: "Conversation \(index) on topic \(index % 97)", folderId: folderId,
                    modelKey: "qwen3-8b", createdAt: created)
                for turn in 0..<shape.messagesPerConversation {
                    var sentence = (0..<(8 + random.below(40))).map { _ in words[random.below(words.count)] }
                    if random.below(2_000) == 0 { sentence.append("zephyr") }
                    try store.appendMessage(
                        conversationId: conversation.id, role: turn % 2 == 0 ? .user : .assistant,
                        MessageContent(text: sentence.joined(separator: " ")),
                        createdAt: created.addingTimeInterval(Double(turn)))
                }
            }
        }
    }
}

/// Runs `body` `runs` times and prints the median and slowest time.
private func report(_ name: String, runs: Int = 51, _ body: () throws -> Void) {
    var times: [Duration] = []
    do {
        for _ in 0..<runs {
            let started = ContinuousClock.now
            try body()
            times.append(ContinuousClock.now - started)
        }
    } catch {
        print("  \(name): failed: \(error)")
        return
    }
    times.sort()
    print("  \(name): median \(milliseconds(times[times.count / 2])) ms, max \(milliseconds(times.last!)) ms")
}

private func milliseconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    return String(format: "%.3f", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
}

/// SplitMix64, so every build of the bench library has the same contents.
private struct BenchRandom {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func below(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
