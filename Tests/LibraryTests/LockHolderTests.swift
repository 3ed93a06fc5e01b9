import Foundation
import Testing

@testable import Library

/// A restore refused because the library is in use names the processes holding its lock file, read from
/// `/proc/locks`, where a file is its device and inode: the same inode on another file system is another file.
@Suite struct LockHolderTests {
    @Test func aLockIsTheHoldersOnlyOnTheSameDeviceAndInode() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("llmster-lock-\(UUID().uuidString)")
            .path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try #require(descriptor >= 0)
        defer {
            close(descriptor)
            unlink(path)
        }
        try #require(flock(descriptor, LOCK_SH) == 0)
        var status = stat()
        try #require(fstat(descriptor, &status) == 0)
        let table = LibraryLock.locksTable()
        let device = UInt64(status.st_dev)
        let inode = UInt64(status.st_ino)
        #expect(LibraryLock.lockingProcesses(in: table, device: device, inode: inode) == [getpid()], "\(table)")
        #expect(!LibraryLock.lockingProcesses(in: table, device: device ^ 0x100, inode: inode).contains(getpid()))

        // The kernel writes major and minor in hex: device fd:01 is major 253, minor 1.
        let listed = "1: FLOCK  ADVISORY  READ  4321 fd:01:77 0 EOF\n2: -> FLOCK  ADVISORY  WRITE 99 fd:01:77 0 EOF\n"
        #expect(
            LibraryLock.lockingProcesses(in: listed, device: 0xfd01, inode: 77) == [4321],
            "a waiting request holds nothing")
        #expect(LibraryLock.lockingProcesses(in: listed, device: 0x0801, inode: 77).isEmpty)
        #expect(LibraryLock.lockingProcesses(in: listed, device: 0xfd01, inode: 78).isEmpty)
    }
}
