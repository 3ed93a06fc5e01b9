import SystemSupport

/// A context item that cannot be read or sent; nothing is sent when one is raised.
public enum ContextError: Error, Equatable, CustomStringConvertible {
    case unreadable(String, reason: String)
    case notFound(String)
    /// The path's symlinks lead back to themselves.
    case symlinkLoop(String)
    /// The path names a FIFO, a device or a socket, which is never read as a file.
    case notRegular(String, kind: FileKind)
    case itemTooLarge(String, size: Int?, limit: Int)
    case pageTooLarge(String, limit: Int)
    case noReadableText(String)
    case messageTooLarge(items: [String], size: Int, limit: Int)
    case binary(String)
    case notUTF8(String)
    case emptyDirectory(String, skipped: Int)
    case noMatch(String)
    case invalidURL(String)
    case fetch(String, reason: String)
    case httpStatus(String, status: Int)
    case unsupportedType(String, type: String)
    case tooManyRedirects(String)
    case command(String, reason: String)
    /// The command was stopped (Ctrl-C, SIGTERM, a cancelled request) before it finished.
    case commandStopped(String)
    /// The command ran past `command_timeout` (seconds) and was stopped.
    case commandTimedOut(String, seconds: Double)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
        case .notFound(let path): "\(path) does not exist"
        case .symlinkLoop(let path): "\(path) is a symlink loop: its links never reach a file; nothing was added"
        case .notRegular(let path, let kind):
            "\(path) is \(kind), not a regular file; only regular files are read as context; nothing was added"
        case .pageTooLarge(let url, let limit):
            "\(url) is larger than \(ContextLimits.spelled(limit)) (\(ContextPage.markupAllowance) times context_item_limit for a page's "
                + "markup); nothing was added"
        case .noReadableText(let url):
            "\(url) has no readable text (or nests its elements too deep to read); nothing was added"
        case .itemTooLarge(let name, let size, let limit):
            "\(name) is \(size.map { ContextItem.size($0) + ", " } ?? "")larger than the context item limit "
                + "(context_item_limit = \(ContextLimits.spelled(limit))); nothing was added"
        case .messageTooLarge(let items, let size, let limit):
            "the context items come to \(ContextItem.size(size)), more than one message may carry "
                + "(context_message_limit = \(ContextLimits.spelled(limit))); nothing was sent:\n"
                + items.map { "  " + $0 }.joined(separator: "\n")
        case .binary(let path):
            "\(path) is a binary file (it contains NUL bytes); only text files can be sent as context"
        case .notUTF8(let path): "\(path) is not valid UTF-8 text; only UTF-8 text can be sent as context"
        case .emptyDirectory(let path, let skipped): "\(path) holds no text file to send (\(skipped) skipped)"
        case .noMatch(let pattern): "\(pattern) matches no file"
        case .invalidURL(let url): "\(url) is not an http:// or https:// URL"
        case .fetch(let url, let reason): "cannot fetch \(url): \(reason)"
        case .httpStatus(let url, let status): "\(url) answered with HTTP status \(status); nothing was added"
        case .unsupportedType(let url, let type): "\(url) is \(type), not text, HTML or JSON; nothing was added"
        case .tooManyRedirects(let url): "\(url) redirects more than 5 times; nothing was added"
        case .command(let command, let reason): "cannot run \(command): \(reason)"
        case .commandStopped(let command): "\(command) was stopped before it finished; nothing was added"
        case .commandTimedOut(let command, let seconds):
            "\(command) timed out: it ran longer than command_timeout (\(Figures.seconds(seconds))) and was stopped; nothing was added"
        }
    }
}
