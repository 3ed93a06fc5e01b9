import Foundation
import SystemSupport

/// Where the server llmster talks to was named, and LM Studio's own record of its server's port, which `lms` reads
/// too: `{"port": N}` in `~/.lmstudio/.internal/http-server.json` (or the file `$LMS_API_SERVER_INFO_PATH` names).
/// It is read only when nothing named a server and nothing answers at the default port.
public enum ServerDiscovery {
    /// What named the server in effect, as `doctor` says it.
    public enum Source: Sendable, Equatable {
        case option, environment, configuration, demo, builtInDefault
        /// LM Studio's server file at `path` named the port; the default port did not answer.
        case lmStudioFile(path: String)

        public var description: String {
            switch self {
            case .option: "--server"
            case .environment: "$LLMSTER_SERVER"
            case .configuration: "the config file"
            case .demo: "--demo"
            case .builtInDefault: "the default (nothing named a server)"
            case .lmStudioFile(let path): "the port LM Studio published in \(path); nothing answered at localhost:1234"
            }
        }
    }

    /// The port LM Studio listens on by default, which llmster's default server names.
    static let defaultPort = 1234

    /// The file LM Studio records its server's port in.
    static func infoPath(environment: [String: String]) -> String {
        if let path = environment["LMS_API_SERVER_INFO_PATH"], !path.isEmpty { return path }
        return Paths.home(environment: environment) + "/.lmstudio/.internal/http-server.json"
    }

    /// The port the file names, when it is a small regular file holding `{"port": N}` with N from 1 to 65535.
    static func publishedPort(environment: [String: String]) -> Int? {
        let path = infoPath(environment: environment)
        guard let data = try? RegularFile.read(path, limit: 64 << 10),
            let object = try? JSONSerialization.jsonObject(with: Data(data)) as? [String: Any],
            let port = object["port"] as? Int, (1...65535).contains(port)
        else { return nil }
        return port
    }

    /// Whether something on this machine accepts a TCP connection on `port` (127.0.0.1) within `milliseconds`: a
    /// refused connection says no at once.
    static func answers(port: Int, milliseconds: Int32 = 300) -> Bool {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let started = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if started == 0 { return true }
        guard errno == EINPROGRESS else { return false }
        var descriptor = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
        guard poll(&descriptor, 1, milliseconds) == 1 else { return false }
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(socket, SOL_SOCKET, SO_ERROR, &failure, &length)
        return failure == 0
    }

    /// The server of LM Studio's file, when it names a port other than the default one and nothing answers there.
    static func discovered(environment: [String: String]) -> (server: String, source: Source)? {
        guard let port = publishedPort(environment: environment), port != defaultPort, !answers(port: defaultPort)
        else { return nil }
        return ("http://127.0.0.1:\(port)", .lmStudioFile(path: infoPath(environment: environment)))
    }
}
