/// The REPL's isolation: `ReplSession` and the slash commands run here, one step at a time.
///
/// The readline thread never enters it; it reads only `CompletionData`.
@globalActor actor ReplActor {
    static let shared = ReplActor()
}
