import Foundation

/// The scripted texts of the `rewrite`, `final-whitespace` and `large-reasoning` directives.
extension ScriptedReply {
    /// The deltas' text for `answer`: the same, or under `final-whitespace` with a space at its end.
    static func streamed(_ answer: String, faults: Faults) -> String {
        faults.finalWhitespace ? answer + " " : answer
    }

    /// The answer `chat.end` reports for `answer`: the same, under `rewrite` a revised text, under
    /// `final-whitespace` the same in NFD with a newline at its end.
    static func final(_ answer: String, faults: Faults) -> String {
        if faults.finalWhitespace { return answer.decomposedStringWithCanonicalMapping + "\n" }
        return faults.rewrite ? "Revised: " + answer : answer
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
