import Foundation
import Glibc
import Synchronization
import SystemSupport
import Testing

@Suite(.spawnsProcesses) struct DescriptorTests {
    @Test func aLargeBufferArrivesWholeThroughAPipe() throws {
        let pipe = try Descriptor.pipe()
        let received = Mutex<[UInt8]>([])
        let finished = DispatchSemaphore(value: 0)
        Thread {
            while let chunk = try? Descriptor.readSome(pipe.read, maximum: 4096), !chunk.isEmpty {
                received.withLock { $0 += chunk }
            }
            finished.signal()
        }.start()
        let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }
        try Descriptor.writeAll(pipe.write, bytes)
        close(pipe.write)
        finished.wait()
        close(pipe.read)
        #expect(received.withLock { $0 } == bytes)
    }

    @Test func writingToAClosedSocketIsAnErrorNotADeadProcess() throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        close(fds[1])
        defer { close(fds[0]) }
        let error = try #require(throws: SystemCallError.self) {
            try Descriptor.writeAll(fds[0], Array("hello".utf8), suppressingSIGPIPE: true)
        }
        #expect(error.code == EPIPE && error.call == "send")
    }

    @Test func pipeEndsAreClosedOnExec() throws {
        let pipe = try Descriptor.pipe()
        defer {
            close(pipe.read)
            close(pipe.write)
        }
        #expect(fcntl(pipe.read, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(pipe.write, F_GETFD) & FD_CLOEXEC != 0)
    }
}
