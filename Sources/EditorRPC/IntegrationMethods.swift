import Chat
import LMStudio
import Library

/// `integrations/list` and `conversations/setIntegrations`: which configured integrations a conversation may use.
///
/// Integrations are reported and stored by name only; their secret headers stay in the credentials file.
enum IntegrationMethods {
    /// Said in an answer when a conversation enables an integration it did not use before.
    static let notice = "Enabled integrations may contact external services."

    static func register(in registry: inout MethodRegistry) {
        registry.register("integrations/list") { context, _ in
            let settings = context.session.configuration.integrations.values.sorted { $0.name < $1.name }
            return .object([
                "integrations": .array(
                    settings.map { setting in
                        .object([
                            "name": .string(setting.name),
                            "kind": .string(setting.isEphemeralMCP ? "mcp" : "plugin"),
                            "target": .string(setting.target),
                            "allowedTools": setting.allowedTools.map { .array($0.map(JSONValue.string)) } ?? .null
                        ])
                    })
            ])
        }
        registry.register("conversations/setIntegrations") { context, params in
            let reference = try params.string("conversationId")
            guard let names = try params.optionalStrings("integrations") else {
                throw RPCError.invalidParams("missing parameter \"integrations\" (an array of names, [] for none)")
            }
            let configuration = context.session.configuration
            try validate(names, configuration)
            let id = try await context.session.resolveConversation(reference).id
            return try await context.session.withLibrary { library in
                let added = try choose(names, for: id, in: library)
                let conversation = try LibraryMethods.existing(id, in: library)
                return withNotice(try LibraryMethods.json(conversation, paths: try library.folderPaths()), added: added)
            }
        }
    }

    /// Refuses names the configuration does not define, listing the ones it does.
    static func validate(_ names: [String], _ configuration: Configuration) throws(RPCError) {
        for name in names where configuration.integrations[name] == nil {
            let known = configuration.integrations.keys.sorted()
            throw RPCError(
                code: RPCError.invalidParamsCode,
                message: "no integration named '\(name)' is configured; "
                    + (known.isEmpty
                        ? "add `integration.\(name) = mcp/… or https://…` to the config"
                        : "configured: \(known.joined(separator: ", "))"),
                kind: "invalid_params", details: ["configured": .array(known.map(JSONValue.string))])
        }
    }

    /// Saves `names` as the conversation's integrations; returns the names it did not use before.
    static func choose(_ names: [String], for id: String, in library: LibraryStore) throws -> [String] {
        _ = try LibraryMethods.existing(id, in: library)
        return try library.setIntegrations(conversationId: id, names: names)
    }

    /// `answer` (an object) with `notice` when integrations were newly enabled.
    static func withNotice(_ answer: JSONValue, added: [String]) -> JSONValue {
        guard !added.isEmpty, case .object(var members) = answer else { return answer }
        members["notice"] = .string(notice)
        return .object(members)
    }
}
