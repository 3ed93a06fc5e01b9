import Foundation
import TestSupport
import Testing

/// The test terminal starts its program with no descriptor of the test process past standard error: a pipe or a
/// socket another test opened at that moment (Foundation learns that a process it started ended when a socket
/// closes) would otherwise stay open in a long-lived child, and that test would wait for it forever.
@Suite(.spawnsProcesses) struct PseudoterminalTests {
    @Test func aProgramOnTheTerminalInheritsNoOtherDescriptor() async throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        let terminal = try Pseudoterminal("/bin/ls", ["/proc/self/fd"], environment: [:])
        #expect(try await terminal.waitForExit() == 0)
        let listed = Set(terminal.text.split(whereSeparator: \.isWhitespace).compactMap { Int32($0) })
        // ls opens the directory it lists as its fourth descriptor.
        #expect(listed.isSubset(of: [0, 1, 2, 3]), "the program also had \(listed.subtracting([0, 1, 2, 3]).sorted())")
    }
}
