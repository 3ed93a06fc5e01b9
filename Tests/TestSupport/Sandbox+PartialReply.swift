import Foundation
import Library
import Testing

extension Sandbox {
    /// Waits until this sandbox's library holds a reply containing `text`, saved while it streams: another process
    /// is in the middle of a reply. Records an issue when none is saved within 30 s.
    public func waitForPartialReply(containing text: String) async throws {
        guard (try await waitForReply(seconds: 30) { $0.text.contains(text) }) != nil else {
            Issue.record("no partial reply containing \(text) was saved")
            return
        }
    }

    /// The last reply of the library's newest conversation once `condition` holds for it, polled every 50 ms
    /// without holding a thread of the concurrency pool; nil after `seconds`.
    public func waitForReply(seconds: Double, where condition: (Message) -> Bool) async throws -> Message? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: libraryPath) {
                let store = try LibraryStore(path: libraryPath)
                if let conversation = try store.mostRecentConversation(),
                    let reply = try store.messages(conversationId: conversation.id).last(where: {
                        $0.role == .assistant
                    }),
                    condition(reply)
                {
                    return reply
                }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }
}
