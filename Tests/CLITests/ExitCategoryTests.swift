import Foundation
import Simulator
import TestSupport
import Testing

/// The exit status comes from the engine's error category, the one rpc's `category` also carries.
@Suite(.spawnsProcesses) struct ExitCategoryTests {
    @Test func noModelChosenIsNotFoundAsRpcSaysModelNotFound() async throws {
        let fixture = try SimulatorFixture(SimulatorOptions(loadedAtStart: [:]))
        let result = try await CLI(server: fixture.url).run(["ask", "hello"])
        #expect(result.status == 5, "\(result)")
        #expect(result.errors.contains("No model chosen"), "\(result)")
    }

    @Test func aFailedSecureConnectionIsUnreachableAsRpcSaysServerUnreachable() async throws {
        let fixture = try SimulatorFixture()
        let secure = fixture.url.replacingOccurrences(of: "http://", with: "https://")
        let result = try await CLI(server: secure).run(["models"])
        #expect(result.status == 3, "\(result)")
    }

    @Test func loadUsesTheConfiguredContextLengthAndUnloadSaysWhatIsNotLoaded() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        try cli.sandbox.write("context_length = 2048\n", to: "config/llmster/config")
        let loaded = try await cli.run(["load", "acme/thinker-8b"])
        #expect(loaded.status == 0, "\(loaded)")
        let listed = try await cli.run(["ps", "--json"])
        let instances = try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]] ?? []
        #expect(
            instances.first { $0["model"] as? String == "acme/thinker-8b" }?["context_length"] as? Int == 2048,
            "\(listed)")
        let typo = try await cli.run(["load", "acme/thinker-8"])
        #expect(typo.status == 5 && typo.errors.contains("did you mean acme/thinker-8b"), "\(typo)")
        let unload = try await cli.run(["unload", "nobody/nothing", "acme/thinker-8b"])
        #expect(unload.status == 5, "one was not loaded: \(unload)")
        #expect(unload.output.contains("Unloaded acme/thinker-8b."), "the other still is: \(unload)")
        #expect(unload.errors.contains("nobody/nothing is not a loaded instance"), "\(unload)")
    }
}
