import Foundation
import Library
import Testing

extension Sandbox {
    /// Waits (up to 30 s) until this sandbox's library holds a reply containing `text`, saved while it streams:
    /// another process is in the middle of a reply. Records an issue when none is saved in time.
    public func waitForPartialReply(containing text: String) async throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: libraryPath) {
                let store = try LibraryStore(path: libraryPath)
                if let conversation = try store.mostRecentConversation(),
                    try store.messages(conversationId: conversation.id).contains(where: {
                        $0.role == .assistant && $0.text.contains(text)
                    })
                {
                    return
                }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("no partial reply containing \(text) was saved")
    }
}
