import Foundation

/// Watches standard output for its reader going away (`llmster ask … | head -c 8`): a pipe or socket whose other end
/// closed reports an error to `poll` whether or not anything is being written, so the reply can stop and be saved as
/// incomplete at once rather than the process dying of SIGPIPE on its next write.
///
/// SIGPIPE must be ignored while it watches; writes to the closed output then fail with `EPIPE`, which they ignore.
final class OutputClosedWatch: Sendable {
    /// Written to when the watch should end.
    private let wake: (read: Int32, write: Int32)

    /// Watches `fd` when it is a pipe or a socket (a terminal or file has no reader to lose), calling `onClose` once
    /// when its reader goes away; nil for other outputs, or when no pipe can be made to stop the watch.
    init?(fd: Int32, onClose: @escaping @Sendable () -> Void) {
        var status = stat()
        guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFIFO || (status.st_mode & S_IFMT) == S_IFSOCK else { return nil }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        wake = (ends[0], ends[1])
        let wake = wake
        Thread {
            var watched = [pollfd(fd: fd, events: 0, revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            while poll(&watched, 2, -1) < 0, errno == EINTR {}
            if watched[1].revents == 0, watched[0].revents & Int16(POLLERR | POLLHUP) != 0 {
                onClose()
            }
            close(wake.read)
        }.start()
    }

    /// Ends the watch.
    func stop() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        close(wake.write)
    }
}
