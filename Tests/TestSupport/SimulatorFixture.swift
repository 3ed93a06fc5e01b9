import Simulator

/// A simulator started on a free loopback port for one test, stopped when released.
public final class SimulatorFixture: Sendable {
    public let simulator: Simulator
    public let url: String

    /// Starts a simulator with `options`.
    public init(_ options: SimulatorOptions = SimulatorOptions()) throws {
        simulator = Simulator(options: options)
        try simulator.start(port: 0)
        url = simulator.baseURL
    }

    deinit { simulator.stop() }

    /// The recorded requests to `path`.
    public func requests(to path: String) -> [RecordedRequest] {
        simulator.recordedRequests().filter { $0.path == path }
    }
}
