import Foundation
import SystemSupport

/// Watches standard output for its reader going away (`llmster ask … | head -c 8`): a pipe or socket whose other end
/// closed reports an error to `poll` whether or not anything is being written, so the reply can stop and be saved as
/// incomplete at once rather than the process dying of SIGPIPE on its next write.
///
/// SIGPIPE must be ignored while it watches; writes to the closed output then fail with `EPIPE`, which they ignore.
final class OutputClosedWatch: Sendable {
    /// Ends the watch's `poll`.
    private let stopping: StopRequest

    /// Watches `fd` when it is a pipe or a socket (a terminal or file has no reader to lose), calling `onClose` once
    /// when its reader goes away; nil for other outputs, or when the watch cannot be stopped.
    init?(fd: Int32, onClose: @escaping @Sendable () -> Void) {
        var status = stat()
        guard fstat(fd, &status) == 0, [.fifo, .socket].contains(FileKind(mode: status.st_mode)),
            let stopping = try? StopRequest()
        else { return nil }
        self.stopping = stopping
        Thread {
            var watched = [
                pollfd(fd: fd, events: 0, revents: 0),
                pollfd(fd: stopping.descriptor, events: Int16(POLLIN), revents: 0)
            ]
            while poll(&watched, 2, -1) < 0, errno == EINTR {}
            if watched[1].revents == 0, watched[0].revents & Int16(POLLERR | POLLHUP) != 0 { onClose() }
        }.start()
    }

    /// Ends the watch.
    func stop() { stopping.request() }
}
