import Foundation
import Glibc
import Synchronization

/// An LM Studio 0.4 stand-in serving HTTP/1.1 on 127.0.0.1, with scripted replies and fault injection.
///
/// Each connection is served on its own thread and closed after one response.
public final class Simulator: Sendable {
    /// The options this simulator was created with.
    public let options: SimulatorOptions
    /// Models, instances, conversations, downloads and recorded requests.
    let state: Mutex<ServerState>
    private let runtime = Mutex(Runtime())
    /// Ends stalls and delays early when the simulator stops.
    let stopSignal = StopSignal()

    private struct Runtime {
        var listener: Int32?
        var port: UInt16 = 0
        var connections: Set<Int32> = []
        var defaultFaults = Faults()
    }

    /// Creates a stopped simulator; call `start` to serve.
    public init(options: SimulatorOptions = SimulatorOptions()) {
        self.options = options
        state = Mutex(
            ServerState(
                loadedAtStart: options.loadedAtStart, hostileModels: options.hostileModels,
                observedShapes: options.observedShapes))
    }

    deinit {
        stop()
    }

    /// Binds 127.0.0.1 and starts serving; returns the bound port (`0` picks a free one).
    @discardableResult
    public func start(port: UInt16 = 0) throws(SimulatorError) -> UInt16 {
        var faults = Faults()
        try faults.apply(options.defaultFaults ?? "")
        let fd = try Self.makeListener(port: port)
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let bound = UInt16(bigEndian: address.sin_port)
        let started = runtime.withLock { runtime -> Bool in
            guard runtime.listener == nil else { return false }
            runtime.listener = fd
            runtime.port = bound
            runtime.defaultFaults = faults
            stopSignal.rearm()
            return true
        }
        guard started else {
            close(fd)
            throw .alreadyStarted
        }
        Thread.detachNewThread { [self] in acceptLoop(fd) }
        return bound
    }

    /// `http://127.0.0.1:<port>` once started.
    public var baseURL: String {
        "http://127.0.0.1:\(runtime.withLock { $0.port })"
    }

    /// Closes the listener and every live connection; safe to call more than once.
    public func stop() {
        stopSignal.stop()
        runtime.withLock { runtime in
            if let listener = runtime.listener {
                shutdown(listener, Int32(SHUT_RDWR))
                runtime.listener = nil
            }
            for fd in runtime.connections {
                shutdown(fd, Int32(SHUT_RDWR))
            }
        }
    }

    /// Every request received since start or the last reset, oldest first (`/__sim/*` excluded).
    public func recordedRequests() -> [RecordedRequest] {
        state.withLock { $0.requests }
    }

    /// Forgets recorded requests, conversations and downloads, and reloads `loadedAtStart`.
    public func reset() {
        state.withLock {
            $0 = ServerState(
                loadedAtStart: options.loadedAtStart, hostileModels: options.hostileModels,
                observedShapes: options.observedShapes)
        }
    }

    /// The parsed `options.defaultFaults`, set by `start`.
    var defaultFaults: Faults {
        runtime.withLock { $0.defaultFaults }
    }

    private static func makeListener(port: UInt16) throws(SimulatorError) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .socket(call: "socket", errno: errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw .socket(call: "bind", errno: code)
        }
        guard listen(fd, 64) == 0 else {
            let code = errno
            close(fd)
            throw .socket(call: "listen", errno: code)
        }
        return fd
    }

    /// Accepts until `stop` shuts the listener down, then closes it.
    private func acceptLoop(_ listener: Int32) {
        defer { close(listener) }
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                return
            }
            let admitted = runtime.withLock { runtime -> Bool in
                guard runtime.listener == listener else { return false }
                runtime.connections.insert(fd)
                return true
            }
            guard admitted else {
                close(fd)
                return
            }
            Thread.detachNewThread { [self] in
                serve(fd)
                runtime.withLock { runtime in
                    runtime.connections.remove(fd)
                    close(fd)
                }
            }
        }
    }

    private func serve(_ fd: Int32) {
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request: HTTPRequest
        do {
            request = try HTTPRequest.read(from: fd)
        } catch {
            if let status = error.status {
                var writer = ResponseWriter(fd: fd, faults: Faults())
                writer.respond(status: status, body: JSON.error(type: "invalid_request", message: error.message))
            }
            return
        }
        route(request, fd: fd)
    }
}
