import Foundation

/// Blocking work (a read, a wait for a child process, a terminal query) run on a thread of its own, so it never holds
/// one of the few threads of Swift concurrency's cooperative pool, with its result awaited.
public enum BlockingThread {
    /// Runs `body` on a new thread named `name` (with `stackSize` bytes of stack when given) and returns its result,
    /// or throws its error.
    public static func run<T: Sendable, Failure: Error>(
        _ name: String, stackSize: Int? = nil,
        _ body: @escaping @Sendable () throws(Failure) -> T
    ) async throws(Failure) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, Failure>, Never>) in
            let thread = Thread {
                do throws(Failure) { continuation.resume(returning: .success(try body())) } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            thread.name = name
            if let stackSize { thread.stackSize = stackSize }
            thread.start()
        }
        return try result.get()
    }
}
