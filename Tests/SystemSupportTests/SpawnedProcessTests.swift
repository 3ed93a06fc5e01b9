import Foundation
import Glibc
import SystemSupport
import Testing

/// Runs `program` with its standard output in a pipe; returns what it printed and how it ended.
private func run(_ program: String, _ arguments: [String], environment: [String: String]? = nil) throws
    -> (output: String, termination: SpawnedProcess.Termination)
{
    let pipe = try Descriptor.pipe()
    defer { close(pipe.read) }
    let process: SpawnedProcess
    do {
        defer { close(pipe.write) }
        process = try SpawnedProcess(
            program: program, arguments: arguments, environment: environment, standardOutput: pipe.write)
    }
    var output: [UInt8] = []
    while let chunk = try? Descriptor.readSome(pipe.read, maximum: 4096), !chunk.isEmpty { output += chunk }
    return (String(decoding: output, as: UTF8.self), process.wait())
}

@Suite struct SpawnedProcessTests {
    @Test func reportsTheExitStatus() throws {
        #expect(try run("/bin/sh", ["-c", "exit 3"]).termination == .exited(3))
        #expect(try run("/bin/sh", ["-c", "exit 0"]).termination.succeeded)
    }

    @Test func reportsTheSignalThatEndedIt() throws {
        #expect(try run("/bin/sh", ["-c", "kill -TERM $$"]).termination == .signalled(SIGTERM))
    }

    @Test func argumentsArriveAsTheyAreWithoutAShell() throws {
        let arguments = ["a b", "$HOME", "*", "; echo injected", "'quoted'", ""]
        let result = try run("printf", ["%s|"] + arguments)
        #expect(result.output == arguments.map { $0 + "|" }.joined())
        #expect(result.termination == .exited(0))
    }

    @Test func theGivenEnvironmentIsTheWholeEnvironment() throws {
        let result = try run(
            "/bin/sh", ["-c", #"printf '%s,%s' "$ONLY" "${HOME-unset}""#], environment: ["ONLY": "this"])
        #expect(result.output == "this,unset")
    }

    @Test func noOtherDescriptorReachesTheProgram() throws {
        let leaky = open("/dev/null", O_RDONLY)
        defer { close(leaky) }
        let result = try run("/bin/sh", ["-c", "[ -e /proc/self/fd/\(leaky) ] && echo leaked || echo closed"])
        #expect(result.output == "closed\n")
    }

    @Test func aMissingProgramIsATypedError() throws {
        let error = try #require(throws: SpawnError.self) {
            try SpawnedProcess(program: "/nonexistent/llmster-no-such-program", arguments: [])
        }
        #expect(error.code == ENOENT && error.description.contains("llmster-no-such-program"))
    }

    @Test func waitingTwiceGivesTheSameAnswerAndSignalsAfterwardsAreHarmless() throws {
        let process = try SpawnedProcess(program: "/bin/sh", arguments: ["-c", "exit 7"])
        #expect(process.wait() == .exited(7))
        process.signal(SIGKILL)
        #expect(process.wait() == .exited(7))
        #expect(process.termination == .exited(7))
    }
}
