import Glibc

/// Why a simulator could not start or a directive string was refused.
public enum SimulatorError: Error, Equatable, CustomStringConvertible {
    /// A POSIX call failed while setting up the listener.
    case socket(call: String, errno: Int32)
    /// A directive in `defaultFaults`, `X-Sim-Faults` or `[[sim:…]]` is unknown or has a bad value.
    case invalidDirective(String)
    /// `start` was called on a simulator that is already running.
    case alreadyStarted

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .socket(let call, let code): "simulator: \(call) failed: \(String(cString: strerror(code)))"
        case .invalidDirective(let text): "simulator: invalid directive '\(text)'"
        case .alreadyStarted: "simulator: already started"
        }
    }
}
