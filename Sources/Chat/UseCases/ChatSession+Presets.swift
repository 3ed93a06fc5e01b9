import Library

/// What applying a preset changed.
public struct PresetApplication: Sendable, Equatable {
    /// The preset applied.
    public let preset: Preset
    /// How its system prompt reaches the model; nil when it has none or the conversation already had it.
    public let systemPrompt: SystemPromptEffect?
    /// The conversation as the preset left it.
    public let conversation: Conversation
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

    /// Gives the conversation `reference` names (an id, id prefix or title) the preset's model, system prompt and settings.
    ///
    /// The same step as `openConversation` with `ConversationOverrides.preset`, so a preset is held to the checks of
    /// `/set` and `/system`: a refused setting (`ChatError.invalidSetting`) changes nothing.
    public func applyPreset(_ name: String, conversationId reference: String) async throws -> PresetApplication {
        let preset = try preset(named: name)
        let opened = try await openConversation(.named(reference), overrides: ConversationOverrides(preset: name))
        return PresetApplication(preset: preset, systemPrompt: opened.systemPrompt, conversation: opened.conversation)
    }
}

extension Preset {
    /// The preset's settings as changes for `ChatSession.setSettings`, in key order; an unknown key throws
    /// `ChatError.invalidSetting`.
    func settingChanges() throws(ChatError) -> [(ConversationSetting, ConversationSetting.Value)] {
        var changes: [(ConversationSetting, ConversationSetting.Value)] = []
        for (key, value) in settings.sorted(by: { $0.key < $1.key }) {
            do { changes.append((try ConversationSetting.named(key), .init(typed: value))) } catch {
                throw .invalidSetting(error)
            }
        }
        return changes
    }
}
