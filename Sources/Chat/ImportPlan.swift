import Library

/// What importing a `.llmster` file will do, decided once for every face (`llmster import`, `/import`, rpc
/// `transfer/import`): what the file carries, whether the user must be asked first, and what each answer does.
///
/// The file's continuation (its server context) follows the rule of `ServerContext`: one the configured server
/// holds is kept without a question; one held by another server, or by a server the file does not name, is
/// asked about, since keeping it means the first message here is refused until a fresh context is chosen.
public struct ImportPlan: Sendable, Equatable {
    /// The user's answer when the plan asks.
    public enum Answer: String, Sendable, CaseIterable {
        /// Keep the server URL and response id.
        case keep
        /// Drop them: the next message starts a fresh server context.
        case drop
    }

    /// What the file carries: title, folder, message and attachment counts, its continuation.
    public let file: ConversationFileSummary
    /// Where the file's continuation stands, seen from the configured server.
    public let continuation: ServerContext
    /// The configured server.
    public let configured: String

    /// Plans the import of the file `file` describes on a library whose configured server is `configured`.
    public init(file: ConversationFileSummary, configured: String) {
        self.file = file
        self.configured = configured
        continuation = ServerContext(responseId: file.responseId, serverURL: file.serverURL, configured: configured)
    }

    /// Whether the face must ask before importing (unless the user already said keep or drop).
    public var mustAsk: Bool {
        if case .elsewhere = continuation { true } else { false }
    }

    /// The server the file says holds its context, passwords redacted; nil when it names none.
    public var fileServer: String? { file.serverURL.map(ServerURL.redactingPasswords(in:)) }

    /// What to tell the user before asking; nil when the plan does not ask.
    public var question: String? {
        guard case .elsewhere(let server) = continuation else { return nil }
        let holder =
            server.map { "a context held by \(ServerURL.redactingPasswords(in: $0))" }
            ?? "a server context, but the file does not say which server holds it"
        return
            "\"\(file.title)\" continues \(holder); llmster is configured for \(ServerURL.redactingPasswords(in: configured))."
    }

    /// What `answer` does, in words for the user (after "keep the continuation:" or "drop it:").
    public func effect(of answer: Answer) -> String {
        switch (answer, continuation) {
        case (.keep, .elsewhere(let server?)):
            "it works on \(ServerURL.redactingPasswords(in: server)) if that server still holds the context; here a message is refused until you choose a fresh one"
        case (.keep, .elsewhere(nil)):
            "no server is known to hold it, so a message is refused until you choose a fresh server context"
        case (.keep, _):
            "the next message continues the server's context"
        case (.drop, _):
            "the next message starts a fresh server context (the model will not remember earlier turns)"
        }
    }

    /// The import options for `answer`; nil (no question was needed, or none answered) keeps a continuation the
    /// configured server holds.
    public func options(answer: Answer?, folder: String?, asNew: Bool) -> ConversationImportOptions {
        ConversationImportOptions(keepContinuation: (answer ?? .keep) == .keep, folder: folder, asNew: asNew)
    }
}
