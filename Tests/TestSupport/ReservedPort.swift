import Foundation
import Synchronization

/// The sockets holding the ports `unusedPort()` handed out, open until the test process ends.
private let reservedSockets = Mutex<[Int32]>([])

/// A loopback port nothing listens on and no other test can take while tests run in parallel: a socket is bound to
/// it and never listens, so a connection is refused as by a server that is down. (A port bound and closed again
/// could be given to the next simulator that starts.) 9 when no socket could be had.
public func unusedPort() -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return 9 }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard bound else {
        close(fd)
        return 9
    }
    reservedSockets.withLock { $0.append(fd) }
    return UInt16(bigEndian: address.sin_port)
}
