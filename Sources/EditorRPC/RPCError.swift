import Chat
import Library
import LMStudio

/// A JSON-RPC error: a code, a readable message, and for application errors a stable `kind`.
public struct RPCError: Error, Equatable, Sendable, CustomStringConvertible {
    public var code: Int
    public var message: String
    /// A stable word clients branch on, e.g. `server_unreachable` (see llmster-rpc(7)).
    public var kind: String?
    /// Whether the same request may succeed when sent again unchanged (after the user acts on `message`).
    public var retryable: Bool
    /// Further members of `data` beside `kind` and `retryable`, e.g. what a confirmation is about.
    public var details: [String: JSONValue]

    /// Creates an error.
    public init(code: Int, message: String, kind: String? = nil, retryable: Bool = false, details: [String: JSONValue] = [:]) {
        self.code = code
        self.message = message
        self.kind = kind
        self.retryable = retryable
        self.details = details
    }

    public var description: String { message }

    /// The `error` member of a response.
    var json: JSONValue {
        var object: [String: JSONValue] = ["code": .number(Double(code)), "message": .string(message)]
        if let kind {
            object["data"] = .object(details.merging(["kind": .string(kind), "retryable": .bool(retryable)]) { $1 })
        }
        return .object(object)
    }

    public static let parseErrorCode = -32700
    public static let invalidRequestCode = -32600
    public static let methodNotFoundCode = -32601
    public static let invalidParamsCode = -32602
    public static let internalErrorCode = -32603
    public static let notInitializedCode = -32002
    public static let requestCancelledCode = -32800
    public static let serverUnreachableCode = -32010
    public static let authCode = -32011
    public static let modelNotFoundCode = -32012
    public static let contextOverflowCode = -32013
    public static let continuationLostCode = -32014
    public static let notFoundCode = -32015
    public static let storageCode = -32016
    public static let serverErrorCode = -32017
    public static let invalidArchiveCode = -32018
    public static let confirmationRequiredCode = -32019
    public static let alreadyImportedCode = -32020
    public static let busyCode = -32021

    /// Invalid JSON: the session goes on.
    static func parse(_ detail: String) -> RPCError {
        RPCError(code: parseErrorCode, message: "Parse error: \(detail)", kind: "parse_error")
    }

    /// A structurally wrong request.
    static func invalidRequest(_ detail: String) -> RPCError {
        RPCError(code: invalidRequestCode, message: "Invalid request: \(detail)", kind: "invalid_request")
    }

    /// A missing or mistyped parameter.
    public static func invalidParams(_ detail: String) -> RPCError {
        RPCError(code: invalidParamsCode, message: detail, kind: "invalid_params")
    }

    /// No record with that id.
    static func notFound(_ what: String) -> RPCError {
        RPCError(code: notFoundCode, message: what, kind: "not_found")
    }

    /// No single conversation matches a reference: `data.candidates` lists the near or matching ones (`id`, `title`).
    static func notFound(_ what: String, candidates: [ConversationCandidate]) -> RPCError {
        RPCError(code: notFoundCode, message: what, kind: "not_found", details: [
            "candidates": .array(candidates.map { .object(["id": .string($0.id), "title": .string($0.title)]) }),
        ])
    }

    /// The error a failure of the engine, the server or the library stands for.
    static func from(_ error: any Error) -> RPCError {
        switch error {
        case let error as RPCError: return error
        case is CancellationError: return RPCError(code: requestCancelledCode, message: "The request was cancelled.", kind: "cancelled")
        case let error as ChatError: return from(chat: error)
        case let error as LMStudioError: return from(server: error)
        case is CredentialsError:
            return RPCError(code: authCode, message: String(describing: error), kind: "auth")
        case let error as LibraryError:
            switch error {
            case .notFound: return notFound(error.description)
            case .ambiguousConversation(_, let candidates): return notFound(error.description, candidates: candidates)
            case .invalidFolderName, .folderExists, .folderCycle: return invalidParams(error.description)
            case .conversationInUse: return RPCError(code: busyCode, message: error.description, kind: "busy", retryable: true)
            default: return RPCError(code: storageCode, message: error.description, kind: "storage")
            }
        case let error as ConfigurationError:
            return invalidParams(error.description)
        case let error as ArchiveError:
            return from(archive: error)
        default:
            return RPCError(code: internalErrorCode, message: String(describing: error), kind: "internal")
        }
    }

    private static func from(chat error: ChatError) -> RPCError {
        switch error {
        case .server(let inner): return from(server: inner)
        case .modelNotDownloaded(_, let suggestion):
            return RPCError(code: modelNotFoundCode, message: error.description, kind: "model_not_found",
                            details: ["suggestion": suggestion.map(JSONValue.string) ?? .null])
        case .noModel:
            return RPCError(code: modelNotFoundCode, message: error.description, kind: "model_not_found")
        case .unknownConversation(_, let closest):
            return notFound(error.description, candidates: closest)
        case .notAChatModel, .visionUnsupported, .reasoningNotAllowed, .nothingToRetry, .noSuchReply, .unknownIntegration, .unknownPreset, .invalidSetting:
            return invalidParams(error.description)
        case .integrationRefused:
            return RPCError(code: serverErrorCode, message: error.description, kind: "server_error")
        case .credentials:
            return RPCError(code: authCode, message: error.description, kind: "auth")
        case .continuationLost:
            return RPCError(code: continuationLostCode, message: error.description, kind: "continuation_lost", retryable: true)
        case .continuationElsewhere(_, let server, _):
            return RPCError(code: continuationLostCode, message: error.description, kind: "continuation_lost", retryable: true,
                            details: ["server": server.map { .string(ServerURL.redactingPasswords(in: $0)) } ?? .null])
        case .storage(let inner):
            return from(inner)
        case .libraryClosed:
            return RPCError(code: storageCode, message: error.description, kind: "storage")
        }
    }

    private static func from(archive error: ArchiveError) -> RPCError {
        switch error {
        case .passwordRequired:
            return RPCError(code: invalidArchiveCode, message: "The backup is encrypted: pass its password.", kind: "invalid_archive")
        case .alreadyImported(let conversationId, let title):
            return RPCError(code: alreadyImportedCode,
                            message: "This library already holds this conversation as \"\(title)\" (\(conversationId)); pass asNew: true to import a copy.",
                            kind: "already_imported", details: ["conversationId": .string(conversationId)])
        case .io, .keyDerivationFailed:
            return RPCError(code: storageCode, message: error.description, kind: "storage")
        case .notAnArchive, .unsupportedVersion, .wrongPasswordOrDamaged, .truncated, .damaged, .tooLarge, .invalid, .keyDerivationTooCostly:
            return RPCError(code: invalidArchiveCode, message: error.description, kind: "invalid_archive")
        }
    }

    private static func from(server error: LMStudioError) -> RPCError {
        switch error {
        case .unreachable, .timedOut, .tls, .connectionLost, .replyConnectionLost, .serverTooOld:
            return RPCError(code: serverUnreachableCode, message: error.description, kind: "server_unreachable", retryable: true)
        case .tokenMissing, .tokenRejected, .tokenLacksPermission, .malformedToken:
            return RPCError(code: authCode, message: error.description, kind: "auth")
        case .modelNotFound:
            return RPCError(code: modelNotFoundCode, message: error.description, kind: "model_not_found")
        case .invalidRequest(let message, _, _) where ReplyErrorKind(message: message) == .contextOverflow:
            return RPCError(code: contextOverflowCode, message: error.description, kind: "context_overflow")
        case .invalidRequest:
            return invalidParams(error.description)
        case .cancelled:
            return RPCError(code: requestCancelledCode, message: error.description, kind: "cancelled")
        case .server, .invalidResponse, .notLMStudio, .stream:
            return RPCError(code: serverErrorCode, message: error.description, kind: "server_error", retryable: true)
        }
    }
}
