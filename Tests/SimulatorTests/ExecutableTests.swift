import Foundation
import TestSupport
import Testing

/// The built `lmstudio-sim` next to the test bundle.
private func executable() throws -> URL { URL(fileURLWithPath: try BuiltProduct.path("lmstudio-sim")) }

@Suite(.spawnsProcesses) struct ExecutableTests {
    @Test
    func printsItsURLFirstAndStopsOnEndOfInput() async throws {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = ["--token-delay", "0", "--exit-on-eof", "--faults", "reasoning"]
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        var line: [UInt8] = []
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard let first = byte.first, first != 10 else { break }
            line.append(first)
        }
        let url = String(decoding: line, as: UTF8.self)
        #expect(url.hasPrefix("http://127.0.0.1:"))
        let port = UInt16(url.split(separator: ":").last ?? "") ?? 0
        #expect(port > 0)
        try input.fileHandleForWriting.close()
        await process.waitForExit()
        #expect(process.terminationStatus == 0)
    }

    @Test
    func exitsCleanlyOnSIGTERM() async throws {
        let process = Process()
        process.executableURL = try executable()
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        #expect(output.fileHandleForReading.readData(ofLength: 7) == Data("http://".utf8))
        process.terminate()
        await process.waitForExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }

    @Test
    func refusesBadDirectivesWithUsage() async throws {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = ["--faults", "split=sideways"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        let text = String(decoding: await errors.fileHandleForReading.readToEndOfFile(), as: UTF8.self)
        await process.waitForExit()
        #expect(process.terminationStatus != 0)
        #expect(text.contains("split=sideways"))
    }
}
