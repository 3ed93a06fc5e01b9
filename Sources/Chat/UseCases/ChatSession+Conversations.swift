import Library
import LMStudio

/// Which conversation a face means.
public enum ConversationReference: Sendable, Equatable {
    /// A new conversation.
    case new
    /// The most recently updated one.
    case mostRecent
    /// An id, a unique id prefix or a title.
    case named(String)
}

/// Choices a face passes when opening or creating a conversation; nil leaves a value as it is.
public struct ConversationOverrides: Sendable, Equatable {
    /// Where a new conversation goes.
    public enum Folder: Sendable, Equatable {
        /// A folder path such as `Work/Research`, created when missing.
        case path(String)
        /// An existing folder's id.
        case id(Int64)
    }

    public var title: String?
    /// A model key or an instance id.
    public var model: String?
    public var systemPrompt: String?
    public var reasoning: String?
    /// Only for a new conversation.
    public var folder: Folder?
    /// The configured integrations to enable (replacing the conversation's choice; empty turns them off).
    public var integrations: [String]?

    /// Creates overrides; every value is optional.
    public init(title: String? = nil, model: String? = nil, systemPrompt: String? = nil, reasoning: String? = nil,
                folder: Folder? = nil, integrations: [String]? = nil) {
        self.title = title
        self.model = model
        self.systemPrompt = systemPrompt
        self.reasoning = reasoning
        self.folder = folder
        self.integrations = integrations
    }
}

/// A conversation a face opened, with what opening it changed.
public struct OpenedConversation: Sendable, Equatable {
    public var conversation: Conversation
    /// Whether this call created the conversation; a face passes it to `send(discardingNewConversation:)`.
    public let isNew: Bool
    /// Integrations newly enabled by the overrides (worth a notice: they may contact external services).
    public let enabledIntegrations: [String]
    /// How a system prompt from the overrides reaches the model; nil when none was given.
    public let systemPrompt: SystemPromptEffect?
}

/// Conversations as `llmster chats` and `/chats` list them, with each one's folder path.
public struct ConversationListing: Sendable, Equatable {
    public var conversations: [Conversation]
    /// Every folder's "/"-separated path, by id.
    public var folderPaths: [Int64: String]
    /// The folder asked for, then the sub-folders the listing includes (e.g. `Work`, `Work/Clients`); empty for every folder.
    public var includedFolders: [String]

    /// The folder path of `conversation`, empty at the top level.
    public func folderPath(of conversation: Conversation) -> String {
        conversation.folderId.flatMap { folderPaths[$0] } ?? ""
    }
}

extension ChatSession {
    /// Conversations, pinned first, then the most recently updated; with `folder` (a path such as `Work`, matched
    /// case-insensitively) only those in it and its sub-folders.
    ///
    /// An unknown folder throws `ChatError.storage(.notFound(kind: "folder", …))`.
    public func listConversations(folder: String? = nil, pinnedOnly: Bool = false, limit: Int = 50) throws -> ConversationListing {
        try storage {
            let paths = try library.folderPaths()
            guard let folder else {
                return ConversationListing(conversations: try library.conversations(pinnedOnly: pinnedOnly, limit: limit),
                                           folderPaths: paths, includedFolders: [])
            }
            guard let found = try library.folder(path: folder) else { throw LibraryError.notFound(kind: "folder", reference: folder) }
            return ConversationListing(
                conversations: try library.conversations(inFolderTree: found.id, pinnedOnly: pinnedOnly, limit: limit),
                folderPaths: paths, includedFolders: try library.folderTree(found.id).compactMap { paths[$0.id] })
        }
    }

    /// Resolves `reference` (or creates a conversation) and applies `overrides`, in one step for every face.
    ///
    /// An unknown or ambiguous reference throws `ChatError.storage` with `LibraryError.notFound` or
    /// `.ambiguousConversation` (listing the candidates); unconfigured integrations throw `ChatError.unknownIntegration`.
    public func openConversation(_ reference: ConversationReference,
                                 overrides: ConversationOverrides = ConversationOverrides()) async throws -> OpenedConversation {
        for name in overrides.integrations ?? [] where configuration.integrations[name] == nil {
            throw ChatError.unknownIntegration(name, configured: configuration.integrations.keys.sorted())
        }
        var opened = try storage {
            var conversation: Conversation
            var systemPrompt: SystemPromptEffect?
            switch reference {
            case .new:
                let folderId: Int64?
                switch overrides.folder {
                case .path(let path)?: folderId = try library.ensureFolder(path: path).id
                case .id(let id)?:
                    guard try library.folder(id: id) != nil else { throw LibraryError.notFound(kind: "folder", reference: String(id)) }
                    folderId = id
                case nil: folderId = nil
                }
                conversation = try library.createConversation(title: overrides.title ?? "", folderId: folderId, modelKey: overrides.model,
                                                              systemPrompt: overrides.systemPrompt, settings: ConversationSettings())
                if overrides.systemPrompt != nil { systemPrompt = .nextRequest }
            case .mostRecent, .named:
                if case .named(let name) = reference {
                    conversation = try library.resolveConversation(name)
                } else {
                    guard let recent = try library.mostRecentConversation() else {
                        throw LibraryError.notFound(kind: "conversation", reference: "the most recent one (there is none yet)")
                    }
                    conversation = recent
                }
                let before = conversation
                if let title = overrides.title { conversation.title = title }
                if let model = overrides.model { conversation.modelKey = model }
                if let system = overrides.systemPrompt, system != conversation.systemPrompt {
                    conversation.systemPrompt = system
                    systemPrompt = conversation.lastResponseId == nil ? .nextRequest : .needsFreshContext
                }
                if conversation != before { try library.updateConversation(conversation) }
            }
            var enabled: [String] = []
            if let names = overrides.integrations {
                enabled = try library.setIntegrations(conversationId: conversation.id, names: names)
                conversation = try library.conversation(id: conversation.id) ?? conversation
            }
            return OpenedConversation(conversation: conversation, isNew: reference == .new, enabledIntegrations: enabled,
                                      systemPrompt: systemPrompt)
        }
        // Reasoning goes through the one settings check: a value the model does not allow is refused now,
        // not saved to fail every later send. A conversation created for this call does not outlive the refusal.
        if let reasoning = overrides.reasoning {
            do {
                opened.conversation.settings = try await setSettings([(.reasoning, .text(reasoning))], conversationId: opened.conversation.id)
            } catch {
                if case .new = reference { try? storage { try library.delete(conversationId: opened.conversation.id) } }
                throw error
            }
        }
        return opened
    }
}
