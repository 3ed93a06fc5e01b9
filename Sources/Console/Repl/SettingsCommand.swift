import Chat
import Foundation
import LMStudio
import Library
import Markdown
import SystemSupport
import TerminalMarkdown

/// `/set`: an adapter over `ChatSession.setSettings` (whose checks every face shares), plus the REPL's own `speak`.
@ReplActor enum SettingsCommand {
    /// Sets `key` to `value` (`default` clears it); a refused value is a usage error with the shared message.
    static func set(_ key: String, to value: String, repl: ReplSession) async throws {
        if key == "speak" {
            guard ["on", "off"].contains(value) else { throw UsageError("speak takes on or off") }
            repl.speaksAnswers = value == "on"
            repl.output.line("Voice answers are \(value) for /voice in this session.")
            return
        }
        let setting: ConversationSetting
        do { setting = try ConversationSetting.named(key) } catch {
            throw UsageError("\(SettingError.unknownKey(key, known: ReplCommands.settingKeys))")
        }
        let id = try await repl.ensureConversation()
        let typed = ConversationSetting.Value(typed: value)
        do {
            _ = try await repl.chat.setSettings([(setting, typed)], conversationId: id)
        } catch ChatError.invalidSetting(let error) {
            throw UsageError("\(error)")
        }
        repl.output.line(
            typed == .clear ? "\(key) is back to the model's default." : "\(key) = \(UntrustedText.sanitize(value))")
    }

    /// Lists every setting of this conversation, `default` where the model's own value applies.
    static func list(repl: ReplSession) async throws {
        let settings = await repl.currentConversation()?.settings ?? ConversationSettings()
        var table = TextTable(columns: [.init("SETTING", priority: 0), .init("VALUE", minimumWidth: 8, priority: 1)])
        for setting in ConversationSetting.allCases {
            table.append([setting.rawValue, setting.value(in: settings).map(UntrustedText.sanitize) ?? "default"])
        }
        table.append(["speak", repl.speaksAnswers ? "on" : "off"])
        repl.output.send(laidOut: table.text(width: repl.terminalWidth, fit: repl.textFit))
    }
}
