import Dispatch
import Foundation
import Glibc
import Simulator

let usage = """
    usage: lmstudio-sim [--port N] [--token T] [--legacy] [--faults DIRECTIVES] [--token-delay S] [--no-auto-evict] [--hostile-models] [--observed-shapes] [--exit-on-eof]

    Runs the LM Studio simulator on 127.0.0.1 and prints its base URL as the first line.

      --port N          port to listen on (default 0: a free port)
      --token T         require `Authorization: Bearer T` on every request
      --legacy          behave like LM Studio before 0.4 (every /api/v1 path is "unexpected")
      --faults D        directives applied to every chat (syntax below)
      --token-delay S   seconds between streamed deltas (default 0.02)
      --no-auto-evict   keep every JIT-loaded model (default: a JIT load evicts earlier JIT loads)
      --hostile-models  also list a model whose key, name and description carry terminal control
                        sequences (OSC 52, OSC 0, the alternate screen, C1, a bidi override)
      --observed-shapes also serve what 0.4.x servers were seen to send beyond the docs: a model key
                        without publisher/, a model listing reasoning xhigh, extra instance config keys
      --exit-on-eof     stop when standard input reaches end of file
      --help            show this help

    Also served: GET /__sim/requests (recorded requests as JSON), POST /__sim/reset.

    \(Simulator.directiveHelp)
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("lmstudio-sim: \(message)\n\(usage)\n".utf8))
    exit(2)
}

var options = SimulatorOptions(tokenDelay: 0.02)
var port: UInt16 = 0
var exitOnEOF = false
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    func value() -> String {
        guard let next = arguments.popFirst() else { fail("\(argument) needs a value") }
        return next
    }
    switch argument {
    case "--help", "-h":
        print(usage)
        exit(0)
    case "--port":
        guard let parsed = UInt16(value()) else { fail("--port needs a number 0…65535") }
        port = parsed
    case "--token": options.requireToken = value()
    case "--legacy": options.legacy = true
    case "--faults": options.defaultFaults = value()
    case "--token-delay":
        guard let parsed = Double(value()), parsed >= 0 else { fail("--token-delay needs seconds ≥ 0") }
        options.tokenDelay = parsed
    case "--no-auto-evict": options.autoEvict = false
    case "--hostile-models": options.hostileModels = true
    case "--observed-shapes": options.observedShapes = true
    case "--exit-on-eof": exitOnEOF = true
    default: fail("unknown argument \(argument)")
    }
}

let simulator = Simulator(options: options)
// A plain handler, installed before the URL is printed: a dispatch source registers asynchronously,
// so a SIGTERM sent right after the URL appears could be lost.
for signalNumber in [SIGINT, SIGTERM] {
    signal(signalNumber) { _ in _exit(0) }
}
do {
    try simulator.start(port: port)
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
FileHandle.standardOutput.write(Data("\(simulator.baseURL)\n".utf8))

if exitOnEOF {
    Thread.detachNewThread {
        while FileHandle.standardInput.availableData.isEmpty == false {}
        simulator.stop()
        exit(0)
    }
}
dispatchMain()
