/// A process's shared hold on a library's lock, apart from any open store.
///
/// A process that will open the library later (an editor's idle `llmster rpc`, before `initialize`) takes it at
/// start, so a restore in another process refuses, naming this one, instead of replacing the file it is about to use;
/// a session reopening its library keeps one while no store is open.
public final class LibraryHold {
    private let lock: LibraryLock?

    /// Holds the library at `path` shared (waiting while a restore holds it); a directory that allows no lock file
    /// gets none, as ``LibraryStore`` does.
    public init(path: String) {
        lock = LibraryLock.shared(path + ".lock")
    }
}

@available(*, unavailable, message: "a LibraryHold belongs to the task that took it")
extension LibraryHold: Sendable {}
