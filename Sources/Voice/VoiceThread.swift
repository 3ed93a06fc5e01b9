import Foundation

/// Runs blocking voice work (audio reads, recognition, helper programs) on its own thread, keeping the
/// cooperative pool free.
enum VoiceThread {
    /// Runs `body` on a new thread and returns its result.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }
}
