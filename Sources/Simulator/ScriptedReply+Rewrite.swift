/// The scripted texts of the `rewrite` and `large-reasoning` directives.
extension ScriptedReply {
    /// The answer `chat.end` reports for a streamed `answer`: the same, or under `rewrite` a revised text.
    static func final(_ answer: String, faults: Faults) -> String {
        faults.rewrite ? "Revised: " + answer : answer
    }

    /// At least `bytes` UTF-8 bytes of numbered reasoning sentences, with accents, CJK and an emoji sequence.
    static func largeReasoning(bytes: Int) -> String {
        var text = ""
        var step = 1
        while text.utf8.count < bytes {
            text += " Step \(step): weigh the Grüße, 日本語 and 👩‍💻 cases before answering."
            step += 1
        }
        return text
    }
}
