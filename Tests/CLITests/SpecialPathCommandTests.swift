import Foundation
import Library
import TestSupport
import Testing

/// Output files (`export -o`, `backup -o`) that are symlinks, FIFOs or standard output are written through, never
/// replaced; input files (`ask -f`, `--image`) that are FIFOs or symlink loops are refused at once, saying what they are.
@Suite(.spawnsProcesses) struct SpecialPathCommandTests {
    /// A sandbox whose library holds one answered conversation, "echo:the lighthouse keeper".
    private func answered(_ fixture: SimulatorFixture) async throws -> CLI {
        let cli = try CLI(server: fixture.url)
        let asked = try await cli.run(["ask", "echo:the lighthouse keeper"])
        try #require(asked.status == 0, "\(asked)")
        return cli
    }

    /// Runs `llmster ARGUMENTS` with standard output on a pipe, as `llmster … | gzip` has it; returns the status,
    /// the raw bytes that came out there, and standard error.
    private func runPiped(_ cli: CLI, _ arguments: [String]) async throws -> (
        status: Int32, output: Data, errors: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BuiltProduct.path("llmster"))
        process.arguments = arguments
        process.environment = cli.environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = Pipe()
        try process.run()
        let bytes = await output.fileHandleForReading.readToEndOfFile()
        let message = String(decoding: await errors.fileHandleForReading.readToEndOfFile(), as: UTF8.self)
        await process.waitForExit()
        return (process.terminationStatus, bytes, message)
    }

    /// Whether `bytes` are a `.llmster` export llmster can read back.
    private func isExport(_ bytes: some DataProtocol, in sandbox: Sandbox) throws -> Bool {
        let copy = sandbox.root + "/copy-\(UUID().uuidString).llmster"
        try Data(bytes).write(to: URL(fileURLWithPath: copy))
        return (try? LibraryStore.inspectConversationFile(at: copy)) != nil
    }

    @Test func exportReplacesARegularFileAndWritesASymlinksTarget() async throws {
        let fixture = try SimulatorFixture()
        let cli = try await answered(fixture)
        let existing = cli.sandbox.root + "/existing.llmster"
        try Data("previous".utf8).write(to: URL(fileURLWithPath: existing))
        let before = try FileManager.default.attributesOfItem(atPath: existing)[.systemFileNumber] as? Int
        let plain = try await cli.run(["export", "echo:the lighthouse keeper", "-o", existing])
        #expect(plain.status == 0 && plain.errors.contains("Exported to \(existing)\n"), "\(plain)")
        #expect(
            try FileManager.default.attributesOfItem(atPath: existing)[.systemFileNumber] as? Int != before,
            "a complete new file renamed over the old one")
        #expect(try isExport(Data(contentsOf: URL(fileURLWithPath: existing)), in: cli.sandbox))

        try FileManager.default.createDirectory(
            atPath: cli.sandbox.root + "/dotfiles", withIntermediateDirectories: true)
        let target = cli.sandbox.root + "/dotfiles/kept.llmster"
        let link = cli.sandbox.root + "/kept.llmster"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "dotfiles/kept.llmster")
        let linked = try await cli.run(["export", "echo:the lighthouse keeper", "-o", link])
        #expect(linked.status == 0 && linked.errors.contains("Exported to \(link) → \(target)"), "\(linked)")
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: link) == "dotfiles/kept.llmster",
            "the link stays a link")
        #expect(try isExport(Data(contentsOf: URL(fileURLWithPath: target)), in: cli.sandbox))
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.sandbox.root + "/dotfiles") == ["kept.llmster"])
    }

    @Test func exportAndBackupWriteAFIFOInPlace() async throws {
        let fixture = try SimulatorFixture()
        let cli = try await answered(fixture)
        let fifo = try FIFO(cli.sandbox.root + "/pipe")
        let exported = try await cli.run(["export", "echo:the lighthouse keeper", "-o", fifo.path])
        #expect(exported.status == 0, "\(exported)")
        #expect(
            exported.errors.contains("Exported to \(fifo.path) (a FIFO (named pipe), written in place)"), "\(exported)")
        #expect(fifo.isStillAFIFO, "the FIFO is not replaced by a file")
        #expect(try isExport(fifo.drain(), in: cli.sandbox), "the reader got the whole export")

        let backedUp = try await cli.run(["backup", "-o", fifo.path])
        #expect(backedUp.status == 0 && backedUp.errors.contains("written in place"), "\(backedUp)")
        #expect(fifo.isStillAFIFO)
        let copy = cli.sandbox.root + "/copy.llmster-backup"
        try Data(fifo.drain()).write(to: URL(fileURLWithPath: copy))
        #expect(try LibraryBackup.isEncrypted(copy) == false, "the reader got a backup")
    }

    @Test func exportToStandardOutputByPathPrintsTheExport() async throws {
        let fixture = try SimulatorFixture()
        let cli = try await answered(fixture)
        // A link of the shape of /dev/stdout first: should it ever be replaced, only the sandbox's link is.
        let link = cli.sandbox.root + "/stdout"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/proc/self/fd/1")
        let throughLink = try await runPiped(cli, ["export", "echo:the lighthouse keeper", "-o", link])
        let exportedThroughLink = try isExport(throughLink.output, in: cli.sandbox)
        try #require(throughLink.status == 0 && exportedThroughLink, "\(throughLink.errors)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "/proc/self/fd/1")

        let piped = try await runPiped(cli, ["export", "echo:the lighthouse keeper", "-o", "/dev/stdout"])
        #expect(piped.status == 0, "\(piped.errors)")
        #expect(try isExport(piped.output, in: cli.sandbox), "the export came out on standard output")
        #expect(piped.errors == "Exported to /dev/stdout (standard output, written in place)\n")
    }

    @Test func aFIFONamedAsAContextFileOrImageIsRefusedAtOnce() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let fifo = try FIFO(cli.sandbox.root + "/pipe")
        // Nothing ever writes the FIFO: a reader would wait for ever, so the run is bounded.
        let file = try await cli.start(["ask", "-f", fifo.path, "echo:no"]).wait(killingAfter: 30)
        #expect(!file.killedBySignal && file.status == 2, "\(file)")
        #expect(file.errors.contains("\(fifo.path) is a FIFO (named pipe), not a regular file"), "\(file)")
        let image = try await cli.start(["ask", "-m", "acme/vision-7b", "--image", fifo.path, "echo:no"]).wait(
            killingAfter: 30)
        #expect(!image.killedBySignal && image.status == 2, "\(image)")
        #expect(
            image.errors.contains(
                "\(fifo.path) is a FIFO (named pipe), not a regular file; the image was not attached"), "\(image)")
        #expect(fixture.requests(to: "/api/v1/chat").isEmpty, "nothing was sent")
    }

    @Test func aFIFOInADirectoryOrAGlobIsSkippedWithItsReason() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        try cli.sandbox.write("notes\n", to: "project/README")
        let fifo = try FIFO(cli.sandbox.root + "/project/pipe")
        let directory = cli.sandbox.root + "/project"
        for source in [directory, directory + "/*"] {
            let result = try await cli.start(["ask", "-f", source, "echo:ok"]).wait(killingAfter: 30)
            #expect(!result.killedBySignal && result.status == 0, "\(result)")
            #expect(
                result.errors.contains("Skipped \(fifo.path) (a FIFO (named pipe), not a regular file)"), "\(result)")
            #expect(
                fixture.requests(to: "/api/v1/chat").last?.field("input")?.contains("File \(directory)/README:") == true
            )
        }
    }

    @Test func aSymlinkLoopIsCalledOneNotMissing() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let loop = cli.sandbox.root + "/loop"
        try FileManager.default.createSymbolicLink(atPath: loop, withDestinationPath: "loop")
        let result = try await cli.run(["ask", "-f", loop, "echo:no"])
        #expect(result.status == 2, "\(result)")
        #expect(result.errors.contains("\(loop) is a symlink loop: its links never reach a file"), "\(result)")
        let image = try await cli.run(["ask", "-m", "acme/vision-7b", "--image", loop, "echo:no"])
        #expect(image.errors.contains("\(loop) is a symlink loop"), "\(image)")
    }
}
