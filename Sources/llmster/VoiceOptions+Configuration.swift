import Chat
import Console
import Voice

extension VoiceOptions {
    /// Voice options from the configuration (`voice_language`, `voice_silence_seconds`, `speak_command`);
    /// `LLMSTER_SPEAK_COMMAND` in the environment wins over `speak_command`.
    static func configured(_ context: CommandContext, audioInput: String?, speak: Bool) -> VoiceOptions {
        var environment = context.environment
        if environment["LLMSTER_SPEAK_COMMAND"] == nil, let command = context.configuration.speakCommand {
            environment["LLMSTER_SPEAK_COMMAND"] = command
        }
        return VoiceOptions(
            audioInput: audioInput, speak: speak, silenceSeconds: context.configuration.voiceSilenceSeconds,
            language: context.configuration.voiceLanguage, environment: environment)
    }
}
