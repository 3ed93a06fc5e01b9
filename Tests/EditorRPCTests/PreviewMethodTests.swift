import EditorRPC
import Foundation
import LMStudio
import Simulator
import TestSupport
import Testing

/// `chat/preview`: the request `chat/send` would make, with nothing sent or saved (an editor's dry run).
@Suite struct PreviewMethodTests {
    @Test func thePreviewIsTheRequestTheNextSendMakes() async throws {
        let fixture = try SimulatorFixture()
        let sandbox = try Sandbox()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let first = await rpc.response(to: await rpc.request("chat/send", ["text": "echo:one"])).0
        let conversation = try #require(first?["result"]?["conversationId"])
        let chatsBefore = fixture.requests(to: "/api/v1/chat").count

        let next = try #require(
            await rpc.call("chat/preview", ["conversationId": conversation, "text": "two"])?["result"])
        #expect(next["method"] == "POST" && next["path"] == "/api/v1/chat")
        #expect(next["body"]?["input"] == "two" && next["body"]?["model"] == "acme/tiny-1b")
        #expect(next["body"]?["previous_response_id"]?.string?.isEmpty == false, "it continues the server context")
        #expect(next["text"]?.string?.contains("\"input\" : \"two\"") == true, "\(String(describing: next["text"]))")

        let fresh = try #require(
            await rpc.call("chat/preview", ["conversationId": conversation, "text": "two", "freshContext": true])?[
                "result"])
        #expect(fresh["body"]?["previous_response_id"] == nil)

        let image = sandbox.root + "/dot.png"
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 200)).write(
            to: URL(fileURLWithPath: image))
        let new = try #require(
            await rpc.call(
                "chat/preview",
                [
                    "text": "look", "systemPrompt": "Be brief.", "model": "acme/vision-7b",
                    "images": [.string(image)]
                ])?["result"])
        #expect(new["body"]?["system_prompt"] == "Be brief." && new["body"]?["model"] == "acme/vision-7b")
        let url = new["body"]?["input"]?.array.last?["data_url"]?.string ?? ""
        #expect(url.hasPrefix("data:image/png;base64,…") && url.contains("base64 characters"), "\(url)")

        #expect(fixture.requests(to: "/api/v1/chat").count == chatsBefore, "nothing was sent")
        #expect(
            await rpc.call("conversations/list")?["result"]?["conversations"]?.array.count == 1, "nothing was saved")
        let messages = await rpc.call("conversations/get", ["id": conversation])?["result"]?["messages"]?.array ?? []
        #expect(messages.count == 2)
    }
}
