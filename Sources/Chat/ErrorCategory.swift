import Library
import LMStudio
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
             .needsConfirmation, .cancelled, .internal: false
        }
    }

    /// The category of any error llmster throws; errors of other types are `internal`.
    public init(of error: any Error) {
        switch error {
        case let error as ChatError: self = error.category
        case let error as LMStudioError: self = error.category
        case let error as LibraryError: self = error.category
        case let error as ArchiveError: self = error.category
        case let error as TurnDecisionNeeded: self = error.category
        case is CredentialsError: self = .authentication
        case is OutputFileError: self = .storage
        case is ConfigurationError, is SettingError: self = .invalid
        case is CancellationError: self = .cancelled
        default: self = .internal
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
            ReplyErrorKind(APIErrorPayload(message: message, code: code, param: param)) == .contextOverflow ? .contextOverflow : .invalid
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
        case .invalidFolderName, .folderExists, .folderCycle: .invalid
        case .inUse, .conversationInUse: .busy
        case .sqlite, .cannotCreate, .newerSchema, .notALibrary, .readOnly: .storage
        }
    }
}

extension ArchiveError {
    /// The category of the failure (see `ErrorCategory`).
    public var category: ErrorCategory {
        switch self {
        case .notAnArchive, .unsupportedVersion, .passwordRequired, .wrongPasswordOrDamaged, .truncated, .damaged, .tooLarge,
             .invalid, .keyDerivationTooCostly: .invalidFile
        case .alreadyImported: .needsConfirmation
        case .io, .keyDerivationFailed: .storage
        }
    }
}
