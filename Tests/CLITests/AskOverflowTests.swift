import Foundation
import TestSupport
import Testing

/// `ask --on-overflow`: a message that would fill the loaded context is refused with its figures and the ways on, or
/// sent the way the option says.
@Suite(.spawnsProcesses) struct AskOverflowTests {
    static let large = "echo:" + String(repeating: "word ", count: 3_040)

    @Test func aMessageThatWouldFillTheContextIsRefusedWithTheWaysOn() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["ask", "echo:one"]).status == 0)
        let refused = try await cli.run(["ask", "-c", Self.large])
        #expect(refused.status != 0 && refused.output.isEmpty)
        #expect(
            refused.errors.contains("would nearly fill the context (ctx") && refused.errors.contains("/4k 93%)"),
            "\(refused.errors)")
        #expect(
            refused.errors.contains("--on-overflow=grow reloads acme/tiny-1b with its context grown to 8k"),
            "\(refused.errors)")
        #expect(
            refused.errors.contains("or send less.") && !refused.errors.contains("-f items"),
            "no -f item was given, so fewer of them is no way on: \(refused.errors)")
        #expect(
            refused.errors.contains("--on-overflow=recap") && refused.errors.contains("--on-overflow=send"),
            "\(refused.errors)")
        #expect(fixture.requests(to: "/api/v1/chat").count == 1, "nothing was sent")
        #expect(refused.status == 2)
        #expect(!refused.errors.contains("usage:"), "the arguments were understood; the usage line tells nothing")
    }

    @Test func growReloadsTheModelWithALargerContextAndAnswers() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["ask", "echo:one"]).status == 0)
        let grown = try await cli.run(["ask", "-c", "--on-overflow=grow", Self.large])
        #expect(grown.status == 0, "\(grown)")
        let ps = try await cli.run(["ps"])
        #expect(
            ps.output.contains("8,192") && !ps.output.contains("4,096"),
            "one instance, with the larger context: \(ps.output)")
    }
}
