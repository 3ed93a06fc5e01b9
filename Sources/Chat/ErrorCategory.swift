import HTTP
import LMStudio
import Library
import SystemSupport

/// What kind of failure an error is: the one classification from which every face derives its own signal (the
/// command line's exit status, rpc's error `kind` and `category`).
///
/// Each error type llmster throws is classified here by an exhaustive switch, so a new case must be given a
/// category before anything compiles.
public enum ErrorCategory: String, Sendable, CaseIterable {
    /// The request cannot be done as given: a setting, value, model or parameter was refused.
    case invalid
    /// LM Studio could not be reached, the connection failed, or the server is older than 0.4.
    case unreachable
    /// The API token is missing, malformed or rejected, or the credentials file cannot be used.
    case authentication = "auth"
    /// No model is chosen, or the server has no such model.
    case modelNotFound = "model_not_found"
    /// No conversation, folder, instance or reply matches (or a reference matches several).
    case notFound = "not_found"
    /// The conversation no longer fits the model's context.
    case contextOverflow = "context_overflow"
    /// The server no longer holds the conversation's context, or another server does.
    case continuationLost = "continuation_lost"
    /// The server refused or failed the request, or sent what llmster cannot read.
    case server
    /// The library or a file could not be read or written.
    case storage
    /// A `.llmster` file or backup cannot be used (not such a file, damaged, a wrong or missing password).
    case invalidFile = "invalid_file"
    /// The request needs the user's answer first (e.g. whether to keep an imported continuation).
    case needsConfirmation = "confirmation"
    /// Another writer holds the conversation or the library; the same request may succeed later.
    case busy
    /// The request was cancelled.
    case cancelled
    /// A failure llmster did not expect.
    case `internal`

    /// Whether sending the same request again may succeed once the user acted on the message.
    public var isRetryable: Bool {
        switch self {
        case .unreachable, .continuationLost, .server, .busy: true
        case .invalid, .authentication, .modelNotFound, .notFound, .contextOverflow, .storage, .invalidFile,
            .needsConfirmation, .cancelled, .internal:
            false
        }
    }

    /// The category of any error: what a `CategorizedError` says it is; a cancelled task's `cancelled`; and
    /// `internal` for an error of a type llmster does not define (from Foundation or the toolchain), which no
    /// code path means to throw. Every error type in Sources conforms (`ErrorCategoryTests` checks the tree).
    public init(of error: any Error) {
        if let error = error as? any CategorizedError {
            self = error.category
        } else {
            self = error is CancellationError ? .cancelled : .internal
        }
    }
}

/// An error that says what kind of failure it is, by an exhaustive switch over its cases where it has any. Every
/// error type llmster throws conforms: beside its declaration, or here for those of modules below `Chat`.
public protocol CategorizedError: Error {
    var category: ErrorCategory { get }
}

extension ChatError: CategorizedError {}
extension LMStudioError: CategorizedError {}
extension LibraryError: CategorizedError {}
extension ArchiveError: CategorizedError {}
extension TurnDecisionNeeded: CategorizedError {}

extension CredentialsError: CategorizedError {
    public var category: ErrorCategory { .authentication }
}

extension ConfigurationError: CategorizedError {
    public var category: ErrorCategory { .invalid }
}

extension SettingError: CategorizedError {
    public var category: ErrorCategory { .invalid }
}

extension SSEError: CategorizedError {
    /// A stream that cannot be read is the server's failure.
    public var category: ErrorCategory { .server }
}

extension HTTPError: CategorizedError {
    public var category: ErrorCategory {
        switch self {
        case .unreachable, .timedOut, .tls, .transfer: .unreachable
        case .invalidURL: .invalid
        case .bodyTooLarge: .server
        case .cancelled: .cancelled
        }
    }
}

extension OutputFileError: CategorizedError {
    public var category: ErrorCategory { .storage }
}

extension AtomicFileError: CategorizedError {
    public var category: ErrorCategory { .storage }
}

extension SystemCallError: CategorizedError {
    public var category: ErrorCategory { .storage }
}

extension RegularFileError: CategorizedError {
    public var category: ErrorCategory { .storage }
}

extension SpawnError: CategorizedError {
    /// A helper program (the editor, the pager, a context command) that could not be started: what to install or
    /// set is the user's to change.
    public var category: ErrorCategory { .invalid }
}

extension ContextError: CategorizedError {
    public var category: ErrorCategory {
        switch self {
        case .unreadable: .storage
        case .notFound, .noMatch: .notFound
        case .fetch, .tooManyRedirects: .unreachable
        case .symlinkLoop, .notRegular, .itemTooLarge, .pageTooLarge, .noReadableText, .messageTooLarge, .binary,
            .notUTF8,
            .emptyDirectory, .invalidURL, .httpStatus, .unsupportedType, .command, .commandStopped, .commandTimedOut:
            .invalid
        }
    }
}

extension ImageInputError: CategorizedError {
    public var category: ErrorCategory {
        switch self {
        case .unreadable: .storage
        case .directory, .tooLarge, .unsupported: .invalid
        }
    }
}

extension LMStudioError {
    /// The category of the failure (see `ErrorCategory`); a refused request is a context overflow by the one rule of
    /// `ReplyErrorKind`.
    public var category: ErrorCategory {
        switch self {
        case .unreachable, .timedOut, .tls, .connectionLost, .replyConnectionLost, .serverTooOld: .unreachable
        case .tokenMissing, .tokenRejected, .tokenLacksPermission, .malformedToken: .authentication
        case .modelNotFound: .modelNotFound
        case .invalidRequest(let message, let param, let code):
            ReplyErrorKind(APIErrorPayload(message: message, code: code, param: param)) == .contextOverflow
                ? .contextOverflow : .invalid
        case .server, .invalidResponse, .notLMStudio, .stream: .server
        case .cancelled: .cancelled
        }
    }
}

extension LibraryError {
    /// The category of the failure (see `ErrorCategory`).
    public var category: ErrorCategory {
        switch self {
        case .notFound, .ambiguousConversation: .notFound
        case .invalidFolderName, .folderExists: .invalid
        case .inUse, .conversationInUse: .busy
        case .sqlite, .cannotCreate, .newerSchema, .notALibrary, .readOnly: .storage
        }
    }
}

extension ArchiveError {
    /// The category of the failure (see `ErrorCategory`).
    public var category: ErrorCategory {
        switch self {
        case .notAnArchive, .unsupportedVersion, .passwordRequired, .wrongPasswordOrDamaged, .truncated, .damaged,
            .tooLarge,
            .invalid, .keyDerivationTooCostly:
            .invalidFile
        case .alreadyImported: .needsConfirmation
        case .io, .keyDerivationFailed: .storage
        }
    }
}
