import Foundation
import SystemSupport
import TestSupport
import Testing

/// The inode number of `path` (not following a symlink there), so a test can tell a file replaced from one written in place.
private func inode(_ path: String) -> ino_t? {
    var info = stat()
    return lstat(path, &info) == 0 ? info.st_ino : nil
}

@Suite struct OutputFileTests {
    /// A FIFO nobody reads is refused at once (opening it for writing would wait for a reader), and stays a FIFO.
    @Test func aFIFOWithoutAReaderIsRefusedAtOnce() throws {
        let scratch = ScratchDirectory()
        try FileManager.default.createDirectory(atPath: scratch.path, withIntermediateDirectories: true)
        let path = scratch.path + "/pipe"
        #expect(mkfifo(path, 0o600) == 0)
        let output = try OutputFile(path)
        #expect(throws: OutputFileError(path: path, problem: "no program is reading this FIFO; start its reader first"))
        {
            try output.write(Array("lost".utf8))
        }
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    }

    /// `/dev/fd/N` of a descriptor llmster opened itself (close-on-exec, as the library's are) is never written.
    @Test func aDescriptorOfLlmstersOwnIsRefused() throws {
        let scratch = ScratchDirectory()
        try FileManager.default.createDirectory(atPath: scratch.path, withIntermediateDirectories: true)
        let own = open(scratch.path + "/library", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(own) }
        #expect(throws: OutputFileError.self) { try OutputFile("/proc/self/fd/\(own)") }
        #expect(try scratch.names() == ["library"])
    }

    @Test func aRegularFileIsStillReplacedAtomically() throws {
        let scratch = ScratchDirectory()
        try FileManager.default.createDirectory(atPath: scratch.path, withIntermediateDirectories: true)
        let path = scratch.path + "/notes.md"
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        let before = inode(path)
        let output = try OutputFile(path)
        #expect(output.replacesAFile && output.description == path)
        try output.write(Array("new".utf8))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")
        #expect(inode(path) != before, "a new file renamed over the old one, never the old one half rewritten")
        #expect(try scratch.names() == ["notes.md"])
    }

    @Test func aSymlinkStaysALinkAndItsTargetIsReplaced() throws {
        let scratch = ScratchDirectory()
        try FileManager.default.createDirectory(atPath: scratch.path + "/dotfiles", withIntermediateDirectories: true)
        try Data("old".utf8).write(to: URL(fileURLWithPath: scratch.path + "/dotfiles/notes.md"))
        try FileManager.default.createSymbolicLink(
            atPath: scratch.path + "/notes.md", withDestinationPath: "dotfiles/notes.md")
        let output = try OutputFile(scratch.path + "/notes.md")
        #expect(output.replacesAFile)
        #expect(output.description == "\(scratch.path)/notes.md → \(scratch.path)/dotfiles/notes.md")
        try output.write(Array("new".utf8))
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: scratch.path + "/notes.md") == "dotfiles/notes.md"
        )
        #expect(try String(contentsOfFile: scratch.path + "/dotfiles/notes.md", encoding: .utf8) == "new")
        #expect(try scratch.names(in: "dotfiles") == ["notes.md"])

        try FileManager.default.createSymbolicLink(
            atPath: scratch.path + "/fresh.md", withDestinationPath: scratch.path + "/dotfiles/fresh.md")
        try OutputFile(scratch.path + "/fresh.md").write(Array("made".utf8))
        #expect(
            try String(contentsOfFile: scratch.path + "/dotfiles/fresh.md", encoding: .utf8) == "made",
            "a dangling link's target is created")
    }

    @Test func aFIFOIsWrittenInPlaceAndStaysAFIFO() throws {
        let scratch = ScratchDirectory()
        try FileManager.default.createDirectory(atPath: scratch.path, withIntermediateDirectories: true)
        let fifo = try FIFO(scratch.path + "/pipe")
        let output = try OutputFile(fifo.path)
        #expect(!output.replacesAFile)
        #expect(output.description == "\(fifo.path) (a FIFO (named pipe), written in place)")
        try output.write(Array("through the pipe".utf8))
        #expect(fifo.drain() == Array("through the pipe".utf8))
        #expect(fifo.isStillAFIFO)
        #expect(try scratch.names() == ["pipe"])
    }

    @Test func aLinkIntoProcSelfFdWritesThatDescriptorAsItIs() async throws {
        let scratch = ScratchDirectory()
        try FileManager.default.createDirectory(atPath: scratch.path, withIntermediateDirectories: true)
        let pipe = Pipe()
        let fd = pipe.fileHandleForWriting.fileDescriptor
        // The shape of /dev/stdout: a symlink to /proc/self/fd/N.
        try FileManager.default.createSymbolicLink(
            atPath: scratch.path + "/out", withDestinationPath: "/proc/self/fd/\(fd)")
        let output = try OutputFile(scratch.path + "/out")
        #expect(output.method == .descriptor(fd))
        try output.write(Array("streamed".utf8))
        try pipe.fileHandleForWriting.close()
        #expect(await pipe.fileHandleForReading.readToEndOfFile() == Data("streamed".utf8))
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: scratch.path + "/out") == "/proc/self/fd/\(fd)")
    }

    @Test func aDirectoryOrASymlinkLoopIsRefusedSayingWhatItIs() throws {
        let scratch = ScratchDirectory()
        try FileManager.default.createDirectory(atPath: scratch.path + "/folder", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: scratch.path + "/loop", withDestinationPath: "loop")
        let directory = try #require(throws: OutputFileError.self) { try OutputFile(scratch.path + "/folder") }
        #expect(directory.description == "cannot write \(scratch.path)/folder: it is a directory; name a file")
        let loop = try #require(throws: OutputFileError.self) { try OutputFile(scratch.path + "/loop") }
        #expect(loop.description.contains("symlink loop"))
        #expect(try scratch.names() == ["folder", "loop"])
    }
}

@Suite struct RegularFileTests {
    @Test func aFIFOASymlinkLoopAndADirectoryAreRefusedAtOnceSayingWhatTheyAre() throws {
        let scratch = ScratchDirectory()
        try FileManager.default.createDirectory(atPath: scratch.path + "/folder", withIntermediateDirectories: true)
        let fifo = try FIFO(scratch.path + "/pipe")
        try FileManager.default.createSymbolicLink(atPath: scratch.path + "/loop", withDestinationPath: "loop")
        #expect(throws: RegularFileError.notRegular(fifo.path, .fifo)) { try RegularFile.read(fifo.path, limit: 10) }
        #expect(
            RegularFileError.notRegular(fifo.path, .fifo).description
                == "\(fifo.path) is a FIFO (named pipe), not a regular file")
        #expect(throws: RegularFileError.symlinkLoop(scratch.path + "/loop")) {
            try RegularFile.read(scratch.path + "/loop", limit: 10)
        }
        #expect(throws: RegularFileError.notRegular(scratch.path + "/folder", .directory)) {
            try RegularFile.read(scratch.path + "/folder", limit: 10)
        }
        #expect(throws: RegularFileError.notFound(scratch.path + "/absent")) {
            try RegularFile.read(scratch.path + "/absent", limit: 10)
        }
    }

    @Test func aRegularFileIsReadWholeOrFoundTooLarge() throws {
        let scratch = ScratchDirectory()
        try FileManager.default.createDirectory(atPath: scratch.path, withIntermediateDirectories: true)
        try Data("twelve bytes".utf8).write(to: URL(fileURLWithPath: scratch.path + "/text"))
        #expect(try RegularFile.read(scratch.path + "/text", limit: 12) == Array("twelve bytes".utf8))
        #expect(try RegularFile.read(scratch.path + "/text", limit: 11) == nil)
    }

    @Test(.enabled(if: getuid() != 0, "root reads files whatever their permissions"))
    func anUnreadableFileSaysPermissionDenied() throws {
        let scratch = ScratchDirectory()
        try FileManager.default.createDirectory(atPath: scratch.path, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(
            atPath: scratch.path + "/secret", contents: Data("x".utf8), attributes: [.posixPermissions: 0])
        #expect(throws: RegularFileError.unreadable(scratch.path + "/secret", reason: "permission denied")) {
            try RegularFile.read(scratch.path + "/secret", limit: 10)
        }
    }
}
