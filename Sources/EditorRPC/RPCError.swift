import Chat
import LMStudio
import Library

/// A JSON-RPC error: a code, a readable message, and for application errors a stable `kind` and the engine's `category`.
public struct RPCError: CategorizedError, Equatable, Sendable, CustomStringConvertible {
    public var code: Int
    public var message: String
    /// A stable word clients branch on, e.g. `server_unreachable` (see llmster-rpc(7)).
    public var kind: String?
    /// The engine's class of the failure (`ErrorCategory`), the one the command line's exit status also comes from.
    public var category: ErrorCategory
    /// Whether the same request may succeed when sent again unchanged (after the user acts on `message`).
    public var retryable: Bool
    /// Further members of `data` beside `kind`, `category` and `retryable`, e.g. what a confirmation is about.
    public var details: [String: JSONValue]

    /// Creates an error; the protocol's own errors (a bad frame, an unknown method) are `invalid`.
    public init(
        code: Int, message: String, kind: String? = nil, category: ErrorCategory = .invalid, retryable: Bool = false,
        details: [String: JSONValue] = [:]
    ) {
        self.code = code
        self.message = message
        self.kind = kind
        self.category = category
        self.retryable = retryable
        self.details = details
    }

    /// The error of `category`: its code, kind and retryability follow from the category.
    public init(_ category: ErrorCategory, message: String, details: [String: JSONValue] = [:]) {
        let (code, kind) = Self.codeAndKind(of: category)
        self.init(
            code: code, message: message, kind: kind, category: category, retryable: category.isRetryable,
            details: details)
    }

    public var description: String { message }

    /// The `error` member of a response.
    var json: JSONValue {
        var object: [String: JSONValue] = ["code": .number(Double(code)), "message": .string(message)]
        if let kind {
            object["data"] = .object(
                details.merging([
                    "kind": .string(kind), "category": .string(category.rawValue),
                    "retryable": .bool(retryable)
                ]) { $1 })
        }
        return .object(object)
    }

    /// The code and kind each category answers with (exhaustive: a new category needs its own).
    private static func codeAndKind(of category: ErrorCategory) -> (Int, String) {
        switch category {
        case .invalid: (invalidParamsCode, "invalid_params")
        case .unreachable: (serverUnreachableCode, "server_unreachable")
        case .authentication: (authCode, "auth")
        case .modelNotFound: (modelNotFoundCode, "model_not_found")
        case .notFound: (notFoundCode, "not_found")
        case .contextOverflow: (contextOverflowCode, "context_overflow")
        case .continuationLost: (continuationLostCode, "continuation_lost")
        case .server: (serverErrorCode, "server_error")
        case .storage: (storageCode, "storage")
        case .invalidFile: (invalidArchiveCode, "invalid_archive")
        case .needsConfirmation: (confirmationRequiredCode, "confirmation_required")
        case .busy: (busyCode, "busy")
        case .cancelled: (requestCancelledCode, "cancelled")
        case .internal: (internalErrorCode, "internal")
        }
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
        RPCError(.invalid, message: detail)
    }

    /// No record with that id.
    static func notFound(_ what: String) -> RPCError {
        RPCError(.notFound, message: what)
    }

    /// The error a failure of the engine, the server or the library stands for: its category (`ErrorCategory`) decides
    /// the code and kind; the details say what a client needs to act (a suggestion, the candidates, a server).
    static func from(_ error: any Error) -> RPCError {
        if let error = error as? RPCError { return error }
        let category = ErrorCategory(of: error)
        var answer = RPCError(category, message: message(of: error), details: details(of: error))
        if case ArchiveError.alreadyImported = error {
            answer.code = alreadyImportedCode
            answer.kind = "already_imported"
        }
        return answer
    }

    private static func message(of error: any Error) -> String {
        switch error {
        case is CancellationError: "The request was cancelled."
        case ChatError.storage(let inner): inner.description
        case ArchiveError.passwordRequired: "The backup is encrypted: pass its password."
        case ArchiveError.alreadyImported(let conversationId, let title):
            "This library already holds this conversation as \"\(title)\" (\(conversationId)); pass asNew: true to import a copy."
        default: String(describing: error)
        }
    }

    /// What a client needs beside the message: the nearest model, the closest conversations, the server holding a context.
    private static func details(of error: any Error) -> [String: JSONValue] {
        switch error {
        case ChatError.modelNotDownloaded(_, let suggestion): ["suggestion": suggestion.map(JSONValue.string) ?? .null]
        case ChatError.unknownConversation(_, let closest): ["candidates": candidates(closest)]
        case ChatError.continuationElsewhere(_, let server, _):
            ["server": server.map { .string(ServerURL.redactingPasswords(in: $0)) } ?? .null]
        case ChatError.storage(let inner): details(of: inner)
        case LibraryError.ambiguousConversation(_, let found): ["candidates": candidates(found)]
        case ArchiveError.alreadyImported(let conversationId, _): ["conversationId": .string(conversationId)]
        default: [:]
        }
    }

    /// `data.candidates`: the conversations a reference came near or matched, each `{id, title, displayTitle}`.
    private static func candidates(_ candidates: [ConversationCandidate]) -> JSONValue {
        .array(
            candidates.map {
                .object([
                    "id": .string($0.id), "title": .string($0.title),
                    "displayTitle": .string(Conversation.displayTitle(of: $0.title))
                ])
            })
    }
}
