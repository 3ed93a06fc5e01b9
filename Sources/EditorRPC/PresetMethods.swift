import Chat
import LMStudio

/// `presets/list`: the configured presets (`preset.NAME.…` in the config), which `conversations/create` takes by name.
enum PresetMethods {
    static func register(in registry: inout MethodRegistry) {
        registry.register("presets/list") { context, _ in
            .object(["presets": .array(context.session.presets.map(json))])
        }
    }

    /// `{"name", "systemPrompt", "model", "settings": {KEY: VALUE}}`, null where unset.
    static func json(_ preset: Preset) -> JSONValue {
        .object([
            "name": .string(preset.name),
            "systemPrompt": preset.systemPrompt.map(JSONValue.string) ?? .null,
            "model": preset.model.map(JSONValue.string) ?? .null,
            "settings": .object(preset.settings.mapValues(JSONValue.string)),
        ])
    }
}
