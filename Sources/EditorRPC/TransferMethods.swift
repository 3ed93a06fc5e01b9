import Chat
import Foundation
import LMStudio
import Library
import SystemSupport

/// `transfer/export|import` (`.llmster` files) and `library/backup|restore`, through `ChatSession`'s library.
enum TransferMethods {
    static func register(in registry: inout MethodRegistry) {
        registry.register("transfer/export") { context, params in
            let reference = try params.string("conversationId")
            let path = try params.string("path")
            try await context.session.exportConversation(reference) { _ in .file(path) }
            return .object(["path": .string(path)])
        }
        registry.register("transfer/import") { context, params in
            try await importConversation(context, params)
        }
        registry.register("transfer/lmstudio") { context, params in
            try await importLMStudio(context, params)
        }
        registry.register("transfer/plan") { context, params in
            .object(planJSON(try context.session.importPlan(forFileAt: try params.string("path"))))
        }
        registry.register("library/backup") { context, params in
            let path = try params.string("path")
            let password = try password(params)
            let statistics = try await context.session.backupLibrary(to: path, password: password)
            return .object([
                "path": .string(path), "encrypted": .bool(password != nil), "statistics": try .encoding(statistics)
            ])
        }
        registry.register("library/restore") { context, params in
            let path = try params.string("path")
            let password = try password(params)
            let ceiling = context.session.configuration.maxKeyDerivationMemory
            guard try params.bool("confirm") else {
                return try await context.session.withLibrary { library in
                    let prepared = try LibraryBackup.prepareRestore(
                        archive: path, password: password, libraryPath: library.path,
                        maximumKeyDerivationMemory: ceiling)
                    prepared.discard()
                    return try preview(
                        prepared, path: path, encrypted: LibraryBackup.isEncrypted(path), restored: false, keptAs: nil)
                }
            }
            // A reply still streaming would be saved into the library being replaced.
            let others = await context.server.runningCount(besides: context.id)
            guard others == 0 else {
                throw RPCError(
                    .busy,
                    message: "\(others) other request(s) are running: let replies finish or cancel them, then restore.")
            }
            // Another llmster process holding the library open answers `busy` (see llmster(1), restore).
            return try await context.session.reopenLibrary { libraryPath in
                try LibraryBackup.checkNotInUse(libraryPath: libraryPath)
                let prepared = try LibraryBackup.prepareRestore(
                    archive: path, password: password, libraryPath: libraryPath,
                    maximumKeyDerivationMemory: ceiling)
                let kept = try prepared.commit()
                return try preview(
                    prepared, path: path, encrypted: LibraryBackup.isEncrypted(path), restored: true, keptAs: kept)
            }
        }
    }

    /// `transfer/lmstudio`: LM Studio's own chats under `directory` (absent: where LM Studio keeps them), described, and
    /// imported unless `dryRun`.
    private static func importLMStudio(_ context: RequestContext, _ params: Params) async throws -> JSONValue {
        let home = Paths.home(environment: ProcessInfo.processInfo.environment)
        let (scan, before) = try await context.session.scanLMStudioChats(
            directory: try params.optionalString("directory"), home: home)
        var result: [String: JSONValue] = [
            "directory": .string(scan.directory), "chats": .integer(scan.chats.count),
            "messages": .integer(scan.messageCount),
            "folders": .array(scan.folders.map(JSONValue.string)), "importedBefore": .integer(before),
            "unreadable": .array(
                scan.unreadable.map { .object(["file": .string($0.file), "reason": .string($0.reason)]) }),
            "missingImages": .array(
                scan.chats.flatMap { chat in
                    chat.missingImages.map { .object(["file": .string(chat.file), "image": .string($0)]) }
                })
        ]
        if try !params.bool("dryRun") {
            let (imported, there) = try await context.session.importLMStudioChats(scan)
            result["imported"] = .integer(imported)
            result["alreadyThere"] = .integer(there)
        }
        return .object(result)
    }

    private static func importConversation(_ context: RequestContext, _ params: Params) async throws -> JSONValue {
        let path = try params.string("path")
        let policy = try params.optionalString("continuation") ?? "ask"
        guard ["keep", "drop", "ask"].contains(policy) else {
            throw RPCError.invalidParams("continuation must be \"keep\", \"drop\" or \"ask\"")
        }
        let folder = try params.optionalString("folder")
        let asNew = try params.bool("asNew")
        let plan = try context.session.importPlan(forFileAt: path)
        if policy == "ask", plan.mustAsk, let question = plan.question {
            var details = planJSON(plan)
            details["title"] = .string(plan.file.title)
            details["configuredServer"] = .string(ServerURL.redactingPasswords(in: plan.configured))
            throw RPCError(
                .needsConfirmation,
                message: question
                    + " Import again with continuation \"keep\" (\(plan.effect(of: .keep))) or \"drop\" (\(plan.effect(of: .drop))).",
                details: details)
        }
        let answer = ImportPlan.Answer(rawValue: policy)
        let conversation = try await context.session.importConversation(
            from: path, options: plan.options(answer: answer, folder: folder, asNew: asNew))
        return try await context.session.withLibrary { library in
            .object([
                "conversation": try LibraryMethods.json(conversation, paths: try library.folderPaths()),
                "continuationKept": .bool(conversation.serverURL != nil)
            ])
        }
    }

    /// The members an import plan adds to a `confirmation_required` error and to `transfer/plan`'s result: what the file
    /// carries, whether to ask, the question and what each answer does.
    private static func planJSON(_ plan: ImportPlan) -> [String: JSONValue] {
        [
            "fileServer": plan.fileServer.map(JSONValue.string) ?? .null,
            "carries": .object([
                "title": .string(plan.file.title),
                "displayTitle": .string(Conversation.displayTitle(of: plan.file.title)),
                "folder": plan.file.folder.map(JSONValue.string) ?? .null,
                "messages": .integer(plan.file.messages), "attachments": .integer(plan.file.attachments),
                "continuation": .bool(plan.file.responseId != nil)
            ]),
            "mustAsk": .bool(plan.mustAsk),
            "question": plan.question.map(JSONValue.string) ?? .null,
            "answers": .object(
                Dictionary(
                    uniqueKeysWithValues: ImportPlan.Answer.allCases.map {
                        ($0.rawValue, JSONValue.string(plan.effect(of: $0)))
                    }))
        ]
    }

    /// The `password` parameter as bytes; nil when absent. An empty password is refused.
    private static func password(_ params: Params) throws(RPCError) -> [UInt8]? {
        guard let text = try params.optionalString("password") else { return nil }
        guard !text.isEmpty else {
            throw RPCError.invalidParams("the password is empty; omit it for an unencrypted backup")
        }
        return Array(text.utf8)
    }

    /// What a backup holds, as `library/restore` answers it, with what its key derivation costs (`keyDerivation`).
    private static func preview(
        _ prepared: PreparedRestore, path: String, encrypted: Bool, restored: Bool, keptAs: String?
    ) throws -> JSONValue {
        guard case .object(var members) = try JSONValue.encoding(prepared.statistics) else { return .null }
        members["size"] = .integer(prepared.archiveSize)
        members["encrypted"] = .bool(encrypted)
        members["keyDerivation"] =
            try LibraryBackup.keyDerivation(of: path).map {
                .object([
                    "memory": .integer(Int(clamping: $0.memory)), "operations": .integer(Int(clamping: $0.operations))
                ])
            } ?? .null
        members["restored"] = .bool(restored)
        members["previousLibrary"] = keptAs.map(JSONValue.string) ?? .null
        return .object(members)
    }
}
