import Foundation
import Testing

@testable import Library

/// The library keeps a server's URL without its userinfo, so a password in it is never stored.
@Suite struct ServerAddressTests {
    @Test func anOlderLibraryLosesThePasswordsInItsServerURLs() throws {
        let library = TemporaryLibrary()
        try FileManager.default.createDirectory(atPath: library.directory + "/data", withIntermediateDirectories: true)
        do {
            let connection = try SQLiteConnection(path: library.path)
            for step in Schema.migrations[..<12] { try connection.execute(step) }
            try connection.execute("PRAGMA user_version = 12")
            try connection.execute(
                """
                INSERT INTO conversations (id, title, created_at, updated_at, server_url, last_response_id) VALUES
                    ('c1', 'Held with a password', 1, 1, 'http://ann:hunter2@gpu.lan:1234', 'resp_1'),
                    ('c2', 'An at sign in the path', 2, 2, 'https://gpu.lan/a@b', 'resp_2');
                INSERT INTO messages (id, conversation_id, position, role, text, status, created_at, updated_at, server_url)
                    VALUES ('m1', 'c1', 0, 'assistant', 'hi', 'complete', 1, 1, 'http://ann:p@ss@gpu.lan:1234/');
                """)
        }
        let store = try library.open()
        #expect(try store.conversation(id: "c1")?.serverURL == "http://gpu.lan:1234")
        #expect(try store.conversation(id: "c1")?.lastResponseId == "resp_1", "the continuation is kept")
        #expect(
            try store.conversation(id: "c2")?.serverURL == "https://gpu.lan/a@b", "only the authority's userinfo goes")
        #expect(try store.messages(conversationId: "c1").first?.serverURL == "http://gpu.lan:1234/")
    }

    @Test func aContinuationOnAServerWithAPasswordIsSavedWithoutIt() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let conversation = try store.createConversation(title: "Private server")
        try store.setContinuation(
            conversationId: conversation.id, serverURL: "http://ann:hunter2@127.0.0.1:9", responseId: "resp_1")
        let reply = try store.appendMessage(
            conversationId: conversation.id, role: .assistant, MessageContent(text: "hi"))
        #expect(try store.conversation(id: conversation.id)?.serverURL == "http://127.0.0.1:9")
        #expect(reply.serverURL == "http://127.0.0.1:9")
    }
}
