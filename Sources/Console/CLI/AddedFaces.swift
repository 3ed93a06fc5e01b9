import Chat
import Library

/// What the `llmster` executable adds to Console: the faces Console does not link, so that the terminal front end
/// builds without the editor protocol or speech recognition. The executable wires them (`rpc`, `voice` and the
/// REPL's `/voice`); a Console without them answers that voice is not part of this build.
public struct AddedFaces: Sendable {
    /// Starts the REPL's `/voice` on `context`, reading answers aloud when `speak` is true: the conversation to run
    /// on a chat session and conversation id, with why a signal stopped a reply (`StopReason.signal`), giving its
    /// last reply. Why voice cannot run (speech recognition missing or failing) is thrown, for the REPL to explain as
    /// any command's error.
    public typealias VoiceStart =
        @Sendable (_ context: CommandContext, _ speak: Bool) async throws -> (
            @Sendable (ChatSession, String, _ stopReason: @escaping @Sendable () -> String?) async throws -> SavedReply
        )

    /// Commands with the name of the command `--help` lists each after.
    public var commands: [(command: Command, after: String)]
    public var voice: VoiceStart?

    /// The faces the executable links.
    public init(commands: [(command: Command, after: String)] = [], voice: VoiceStart? = nil) {
        self.commands = commands
        self.voice = voice
    }
}
