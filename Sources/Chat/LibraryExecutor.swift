import Foundation

/// A serial executor running its jobs on a thread of its own: `ChatSession` runs on one, so its synchronous library
/// work (SQLite, with its busy timeout; a backup's Argon2id key derivation) never blocks a thread of the cooperative
/// pool, of which a two-core machine has two.
///
/// The thread ends once the executor is released (its actor is gone) and the jobs already queued have run.
///
/// It knows its thread (`checkIsolated`, `isIsolatingCurrentContext`), as GRDB's `DispatchQueueActor` knows its queue,
/// so code running there outside a task (a C library's callback) may assume the actor's isolation.
final class LibraryExecutor: SerialExecutor {
    /// The jobs waiting to run, shared with the thread (which must not keep the executor alive).
    ///
    /// `@unchecked Sendable`: `jobs`, `closed` and `thread` are read and written only with `condition` locked
    /// (`enqueue`, `deinit`, `runsOnItsThread` and `run` each lock it around every access).
    private final class Queue: @unchecked Sendable {
        let condition = NSCondition()
        var jobs: [UnownedJob] = []
        var closed = false
        /// The executor's thread, once it has started.
        var thread: pthread_t?
    }

    private let queue = Queue()

    /// Starts the executor's thread, named `name` (as a debugger and `top -H` show it).
    init(name: String) {
        let queue = queue
        // Unowned: a queued job keeps its actor, and so this executor, alive while it waits.
        let executor = asUnownedSerialExecutor()
        let thread = Thread { Self.run(queue, on: executor) }
        thread.name = name
        thread.start()
    }

    deinit {
        queue.condition.lock()
        queue.closed = true
        queue.condition.signal()
        queue.condition.unlock()
    }

    /// Whether the calling thread is the executor's.
    private var runsOnItsThread: Bool {
        queue.condition.lock()
        defer { queue.condition.unlock() }
        return queue.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    /// Stops the process when called off the executor's thread: the runtime asks this before letting synchronous
    /// code assume the actor's isolation, and a wrong assumption would race on the library.
    func checkIsolated() {
        precondition(runsOnItsThread, "not on the library executor's thread")
    }

    func isIsolatingCurrentContext() -> Bool? { runsOnItsThread }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.condition.lock()
        queue.jobs.append(job)
        queue.condition.signal()
        queue.condition.unlock()
    }

    /// Runs the queued jobs in order, a batch at a time, until the executor is closed and nothing is left.
    private static func run(_ queue: Queue, on executor: UnownedSerialExecutor) {
        var batch: [UnownedJob] = []
        queue.condition.lock()
        queue.thread = pthread_self()
        queue.condition.unlock()
        while true {
            queue.condition.lock()
            while queue.jobs.isEmpty && !queue.closed { queue.condition.wait() }
            if queue.jobs.isEmpty {
                queue.condition.unlock()
                return
            }
            swap(&batch, &queue.jobs)
            queue.condition.unlock()
            for job in batch { job.runSynchronously(on: executor) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
