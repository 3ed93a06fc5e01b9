import Foundation

extension FileHandle {
    /// Writes `bytes` to a child's input; a child that has already gone (EPIPE) ends the write quietly, leaving it to
    /// the test's expectations.
    ///
    /// SIGPIPE is held back on this thread alone and a pending one dropped, rather than ignored for the process:
    /// children started meanwhile (Foundation's `Process` resets no signal) would inherit an ignored SIGPIPE, and a
    /// test of how llmster meets a closed pipe could then not fail. `write(_:)` traps on EPIPE besides.
    public func writeToChild(_ bytes: some Sequence<UInt8>) {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        defer {
            var pending = sigset_t()
            sigpending(&pending)
            if sigismember(&pending, SIGPIPE) == 1 {
                var now = timespec()
                sigtimedwait(&pipeSignal, nil, &now)
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        try? write(contentsOf: Data(bytes))
    }
}
