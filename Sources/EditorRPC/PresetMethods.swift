import Chat
import LMStudio

/// `presets/list`: the configured presets (`preset.NAME.…` in the config), which `conversations/create` takes by name;
/// `presets/apply`: one preset given to an existing conversation.
enum PresetMethods {
    static func register(in registry: inout MethodRegistry) {
        registry.register("presets/list") { context, _ in
            .object(["presets": .array(context.session.presets.map(json))])
        }
        registry.register("presets/apply") { context, params in
            let applied = try await context.session.applyPreset(
                try params.string("name"), conversationId: try params.string("conversationId"))
            // The record carries `needsFreshContext`, saved by the engine.
            return try await context.session.withLibrary { library in
                try LibraryMethods.json(applied.conversation, paths: try library.folderPaths())
            }
        }
    }

    /// `{"name", "summary", "systemPrompt", "model", "settings": {KEY: VALUE}, "template", "slots": [NAME]}`, null where
    /// unset; `summary` is the REPL's one line about it (`Preset.summary`), `slots` the template's (`input`, `stdin`).
    static func json(_ preset: Preset) -> JSONValue {
        .object([
            "name": .string(preset.name),
            "summary": .string(preset.summary),
            "systemPrompt": preset.systemPrompt.map(JSONValue.string) ?? .null,
            "model": preset.model.map(JSONValue.string) ?? .null,
            "settings": .object(preset.settings.mapValues(JSONValue.string)),
            "template": preset.template.map(JSONValue.string) ?? .null,
            "slots": .array(Preset.slots.filter(preset.hasSlot).map(JSONValue.string))
        ])
    }
}
