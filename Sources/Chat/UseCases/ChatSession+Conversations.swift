import Foundation
import LMStudio
import Library

/// Which conversation a face means.
public enum ConversationReference: Sendable, Equatable {
    /// A new conversation.
    case new
    /// The one last used: opened through `openConversation` or sent to (`LibraryStore.mostRecentConversation`).
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
    /// A configured preset whose model, system prompt and settings the conversation takes; `model`,
    /// `systemPrompt` and `reasoning` given here win over the preset's.
    public var preset: String?

    /// Creates overrides; every value is optional.
    public init(
        title: String? = nil, model: String? = nil, systemPrompt: String? = nil, reasoning: String? = nil,
        folder: Folder? = nil, integrations: [String]? = nil, preset: String? = nil
    ) {
        self.title = title
        self.model = model
        self.systemPrompt = systemPrompt
        self.reasoning = reasoning
        self.folder = folder
        self.integrations = integrations
        self.preset = preset
    }
}

/// A conversation a face opened, with what opening it changed.
public struct OpenedConversation: Sendable, Equatable {
    public var conversation: Conversation
    /// Whether this call created the conversation (`submit(_:in:opened:…)` removes it when the turn is not sent).
    public let isNew: Bool
    /// Integrations newly enabled by the overrides (worth a notice: they may contact external services).
    public let enabledIntegrations: [String]
    /// How a system prompt from the overrides reaches the model; nil when none was given.
    public let systemPrompt: SystemPromptEffect?
    /// The conversation as saved before the overrides changed it; nil when new or unchanged. A face passes the opened
    /// conversation to `submit(_:in:opened:…)`, which puts it back when the turn is not sent.
    public var previous: Conversation? = nil
}

/// Conversations as `llmster chats` and `/chats` list them, with each one's folder path.
public struct ConversationListing: Sendable, Equatable {
    public var conversations: [Conversation]
    /// Every folder's "/"-separated path, by id.
    public var folderPaths: [Int64: String]
    /// The folder asked for, then the sub-folders the listing includes (e.g. `Work`, `Work/Clients`); empty for every folder.
    public var includedFolders: [String]
    /// Where each listed fork came from, by conversation id.
    public var forkOrigins: [String: ForkOrigin] = [:]

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
    public func listConversations(folder: String? = nil, pinnedOnly: Bool = false, limit: Int = 50) throws
        -> ConversationListing
    {
        try storage {
            let paths = try library.folderPaths()
            var listing: ConversationListing
            if let folder {
                guard let found = try library.folder(path: folder) else {
                    throw LibraryError.notFound(kind: "folder", reference: folder)
                }
                listing = ConversationListing(
                    conversations: try library.conversations(
                        inFolderTree: found.id, pinnedOnly: pinnedOnly, limit: limit),
                    folderPaths: paths, includedFolders: try library.folderTree(found.id).compactMap { paths[$0.id] })
            } else {
                listing = ConversationListing(
                    conversations: try library.conversations(pinnedOnly: pinnedOnly, limit: limit),
                    folderPaths: paths, includedFolders: [])
            }
            listing.forkOrigins = try library.forkOrigins(of: listing.conversations.map(\.id))
            return listing
        }
    }

    /// The conversation `reference` names: an exact id, an exact title (case-insensitive) or a unique id prefix.
    ///
    /// None throws `ChatError.unknownConversation` with the closest titles; several throw `ChatError.storage`
    /// with `LibraryError.ambiguousConversation` (listing the candidates).
    public func resolveConversation(_ reference: String) throws -> Conversation {
        do {
            return try library.resolveConversation(reference)
        } catch LibraryError.notFound(kind: "conversation", _) {
            let recent = try storage { try library.conversations(limit: 500) }
            throw ChatError.unknownConversation(reference: reference, closest: Self.closest(to: reference, in: recent))
        } catch let error as LibraryError {
            throw ChatError.storage(error)
        }
    }

    /// At most five conversations whose titles contain `reference` or are within a few edits of it, nearest first.
    private static func closest(to reference: String, in conversations: [Conversation]) -> [ConversationCandidate] {
        let wanted = reference.lowercased()
        let scored = conversations.compactMap { conversation -> (Conversation, Int)? in
            let title = conversation.title.lowercased()
            if !wanted.isEmpty, title.contains(wanted) { return (conversation, 0) }
            let distance = EditDistance.between(wanted, title)
            return distance <= max(2, wanted.count / 3) ? (conversation, distance) : nil
        }
        return scored.sorted { $0.1 < $1.1 }.prefix(5).map { ConversationCandidate(id: $0.0.id, title: $0.0.title) }
    }

    /// Resolves `reference` (or creates a conversation) and applies `overrides`, in one step for every face; the
    /// conversation becomes the one last used, which `.mostRecent` (`-c`) continues.
    ///
    /// Everything is checked before anything is saved: an unknown preset throws `ChatError.unknownPreset`, a
    /// refused setting (the preset's, or the reasoning override) `ChatError.invalidSetting`, unconfigured
    /// integrations `ChatError.unknownIntegration`, and a reference see `resolveConversation`.
    public func openConversation(
        _ reference: ConversationReference,
        overrides: ConversationOverrides = ConversationOverrides()
    ) async throws -> OpenedConversation {
        let preset = try overrides.preset.map { try self.preset(named: $0) }
        for name in overrides.integrations ?? [] where configuration.integrations[name] == nil {
            throw ChatError.unknownIntegration(name, configured: configuration.integrations.keys.sorted())
        }
        let model = (overrides.model ?? preset?.model).map(configuration.modelKey(for:))
        let systemPrompt = overrides.systemPrompt ?? preset?.systemPrompt
        var changes = try preset?.settingChanges() ?? []
        if let reasoning = overrides.reasoning {
            changes.removeAll { $0.0 == .reasoning }
            changes.append((.reasoning, .text(reasoning)))
        }
        var conversation: Conversation
        var effect: SystemPromptEffect?
        var previous: Conversation?
        switch reference {
        case .new:
            let now = Date()
            let planned = Conversation(
                id: "", title: overrides.title ?? "", createdAt: now, updatedAt: now, modelKey: model)
            let settings = try await checkedSettings(changes, for: planned)
            conversation = try storage {
                let folderId: Int64?
                switch overrides.folder {
                case .path(let path)?: folderId = try library.ensureFolder(path: path).id
                case .id(let id)?:
                    guard try library.folder(id: id) != nil else {
                        throw LibraryError.notFound(kind: "folder", reference: String(id))
                    }
                    folderId = id
                case nil: folderId = nil
                }
                return try library.createConversation(
                    title: planned.title, folderId: folderId, modelKey: model,
                    systemPrompt: systemPrompt, settings: settings)
            }
            if systemPrompt != nil { effect = .nextRequest }
        case .mostRecent, .named:
            if case .named(let name) = reference {
                conversation = try resolveConversation(name)
            } else {
                guard let recent = try storage({ try library.mostRecentConversation() }) else {
                    throw ChatError.storage(
                        .notFound(kind: "conversation", reference: "the most recent one (there is none yet)"))
                }
                conversation = recent
            }
            let before = conversation
            if let title = overrides.title { conversation.title = title }
            if let model { conversation.modelKey = model }
            if let systemPrompt, systemPrompt != conversation.systemPrompt {
                effect = conversation.changeSystemPrompt(to: systemPrompt)
            }
            conversation.settings = try await checkedSettings(changes, for: conversation)
            let changed = conversation
            if changed != before {
                try storage { try library.updateConversation(changed) }
                previous = before
            }
            try recordUse(of: changed.id)
        }
        var enabled: [String] = []
        if let names = overrides.integrations {
            let id = conversation.id
            enabled = try storage { try library.setIntegrations(conversationId: id, names: names) }
            conversation = try storage { try library.conversation(id: id) } ?? conversation
        }
        return OpenedConversation(
            conversation: conversation, isNew: reference == .new, enabledIntegrations: enabled,
            systemPrompt: effect, previous: previous)
    }

    /// Records that a face opened the conversation now: it is the one `-c` continues (`LibraryStore.markUsed`). A
    /// read-only library can still be read; only the opening goes unrecorded.
    public func recordUse(of conversationId: String) throws {
        try storage {
            if try !library.isReadOnly { try library.markUsed(conversationId: conversationId) }
        }
    }
}
