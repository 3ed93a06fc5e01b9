import Foundation
import Simulator
import Testing
import TestSupport

/// The exit status comes from the engine's error category, the one rpc's `category` also carries.
@Suite struct ExitCategoryTests {
    @Test func noModelChosenIsNotFoundAsRpcSaysModelNotFound() throws {
        let fixture = try SimulatorFixture(SimulatorOptions(loadedAtStart: [:]))
        let result = try CLI(server: fixture.url).run(["ask", "hello"])
        #expect(result.status == 5, "\(result)")
        #expect(result.errors.contains("No model chosen"), "\(result)")
    }

    @Test func aFailedSecureConnectionIsUnreachableAsRpcSaysServerUnreachable() throws {
        let fixture = try SimulatorFixture()
        let secure = fixture.url.replacingOccurrences(of: "http://", with: "https://")
        let result = try CLI(server: secure).run(["models"])
        #expect(result.status == 3, "\(result)")
    }
}
