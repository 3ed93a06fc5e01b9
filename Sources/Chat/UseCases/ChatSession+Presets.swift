import Library

/// What applying a preset changed.
public struct PresetApplication: Sendable, Equatable {
    /// The preset applied.
    public let preset: Preset
    /// How its system prompt reaches the model; nil when it has none.
    public let systemPrompt: SystemPromptEffect?
    /// The conversation's settings now.
    public let settings: ConversationSettings
}

extension ChatSession {
    /// The configured presets, by name.
    public nonisolated var presets: [Preset] { configuration.presets.values.sorted { $0.name < $1.name } }

    /// The preset called `name`, else `ChatError.unknownPreset` listing the configured ones.
    public nonisolated func preset(named name: String) throws -> Preset {
        guard let preset = configuration.presets[name] else {
            throw ChatError.unknownPreset(name, configured: configuration.presets.keys.sorted())
        }
        return preset
    }

    /// Gives conversation `conversationId` the preset's system prompt, settings and (unless `includingModel` is
    /// false, for a face that switches models itself under the load policy) its model.
    ///
    /// Settings go through `setSettings` and the prompt through `setSystemPrompt`, so a preset is held to the same
    /// checks as `/set` and `/system`: a refused setting (`ChatError.invalidSetting`) changes nothing.
    public func applyPreset(_ name: String, conversationId: String, includingModel: Bool = true) async throws -> PresetApplication {
        let preset = try preset(named: name)
        if includingModel, let model = preset.model {
            _ = try await openConversation(.named(conversationId), overrides: ConversationOverrides(model: model))
        }
        var changes: [(ConversationSetting, ConversationSetting.Value)] = []
        for key in preset.settings.keys.sorted() {
            do { changes.append((try ConversationSetting.named(key), .init(typed: preset.settings[key]!))) } catch {
                throw ChatError.invalidSetting(error)
            }
        }
        let settings = try await setSettings(changes, conversationId: conversationId)
        let effect = try preset.systemPrompt.map { try setSystemPrompt($0, conversationId: conversationId) }
        return PresetApplication(preset: preset, systemPrompt: effect, settings: settings)
    }
}
