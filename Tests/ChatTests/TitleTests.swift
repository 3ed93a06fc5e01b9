import Chat
import Testing

/// The title a conversation takes from its first message.
@Suite struct TitleTests {
    @Test func theTitleIsTheFirstLineOfWhatWasTyped() {
        #expect(ChatSession.title(from: "\n  How do folds work?\nmore") == "How do folds work?")
        #expect(ChatSession.title(from: String(repeating: "a", count: 70)) == String(repeating: "a", count: 59) + "…")
        #expect(ChatSession.title(from: "  \n") == "Untitled")
    }

    @Test func attachedFilesBeforeTheTextAreSkipped() {
        let neovim =
            "work/sample.py:\n```python\nprint(1)\n```\n\nnotes.txt:\n````text\n```\n````\n\nWhy does it print?"
        #expect(ChatSession.title(from: neovim) == "Why does it print?")
        let emacs = "File: notes.txt\n```text\nThe secret word\n```\n\nexplain this"
        #expect(ChatSession.title(from: emacs) == "explain this")
    }

    @Test func aMessageThatIsOnlyABlockKeepsItsFirstLine() {
        #expect(ChatSession.title(from: "```swift\nlet x = 1\n```") == "```swift")
        #expect(ChatSession.title(from: "Look:\n```\nunclosed") == "Look:")
    }
}
