import CSodium
import Console
import Foundation
import Simulator
import Synchronization
import SystemSupport

/// Keeps the `--demo` simulator alive for the life of the process.
let demoServer = Mutex<Simulator?>(nil)

// Before anything reads LM_API_TOKEN: a crash must not leave it in a core file.
_ = llmster_forbid_core_dumps()

ProcessMemory.returnLargeBuffersToSystem()

// Console is the terminal; the editor protocol and voice are wired in here.
let status = await App.run(
    arguments: Array(CommandLine.arguments.dropFirst()),
    environment: ProcessInfo.processInfo.environment,
    faces: AddedFaces(
        commands: [(VoiceCommand.command, after: "ask"), (RpcCommand.command, after: "restore")],
        voice: { context, speak in try await VoiceCommand.startInRepl(context, speak: speak) }),
    startDemo: {
        var options = SimulatorOptions()
        options.tokenDelay = 0.02
        options.answersWhatIsAsked = true
        let simulator = Simulator(options: options)
        let port = try simulator.start(port: 0)
        demoServer.withLock { $0 = simulator }
        return "http://127.0.0.1:\(port)"
    })
exit(status)
