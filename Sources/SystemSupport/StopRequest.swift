import Glibc
import Synchronization

/// A request, made from any thread, that blocking work stop: once ``request()`` is called ``descriptor`` is readable
/// for good, so a `poll` that includes it wakes.
public final class StopRequest: Sendable {
    /// The read end of a pipe that turns readable on the request; owned by this object.
    public let descriptor: Int32
    private let writeEnd: Int32
    private let requested = Atomic(false)

    /// Creates a request not yet made.
    public init() throws(SystemCallError) {
        (descriptor, writeEnd) = try Descriptor.pipe()
    }

    deinit {
        close(descriptor)
        close(writeEnd)
    }

    /// Asks the work to stop; later calls do nothing more.
    public func request() {
        guard !requested.exchange(true, ordering: .sequentiallyConsistent) else { return }
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Whether ``request()`` was called.
    public var isRequested: Bool { requested.load(ordering: .sequentiallyConsistent) }
}
