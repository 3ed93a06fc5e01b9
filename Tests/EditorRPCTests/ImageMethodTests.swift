import EditorRPC
import Foundation
import LMStudio
import Simulator
import TestSupport
import Testing

/// `chat/send` with `images`: files the editor names, read by llmster and sent beside the text.
@Suite struct ImageMethodTests {
    @Test func imagesGoWithTheTextToAModelThatSeesThem() async throws {
        let fixture = try SimulatorFixture()
        let sandbox = try Sandbox()
        let image = sandbox.root + "/dot.png"
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 24)).write(
            to: URL(fileURLWithPath: image))
        try sandbox.write("not an image", to: "notes.txt")
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let seen = await rpc.response(
            to: await rpc.request(
                "chat/send", ["text": "What is in it?", "model": "acme/vision-7b", "images": [.string(image)]])
        ).0
        #expect(
            seen?["result"]?["message"]?["text"]?.string?.hasPrefix("I can see 1 image in your message.") == true,
            "\(String(describing: seen))")
        let blind = await rpc.response(
            to: await rpc.request(
                "chat/send", ["text": "echo:look", "model": "acme/tiny-1b", "images": [.string(image)]])
        ).0
        #expect(blind?.errorKind == "invalid_params")
        let text = await rpc.response(
            to: await rpc.request(
                "chat/send",
                [
                    "text": "echo:look", "model": "acme/vision-7b",
                    "images": [.string(sandbox.root + "/notes.txt")]
                ])
        ).0
        #expect(text?.errorKind == "invalid_params")
        #expect(
            await rpc.call("conversations/list")?["result"]?["conversations"]?.array.count == 1,
            "a refused send leaves no conversation")
    }
}
