import Testing
import Voice

@Suite struct SpeechFilterTests {
    static let cases: [(markdown: String, spoken: String)] = [
        ("Your id is 3fa85f64-5717-4562-b3fc-2c963f66afa6.", "Your id is."),
        ("The response resp_8c1f2a9b3d is stored.", "The response is stored."),
        ("Commit 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b fixed it", "Commit fixed it"),
        ("Digest sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 matches", "Digest matches"),
        ("The token aGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQ= expires", "The token expires"),
        ("Great job 🎉👍 team ✅", "Great job team"),
        ("See https://www.example.com/docs/page?x=1 for more.", "See example.com for more."),
        ("Listen to https://cdn.example.com/song.mp3 now", "Listen to now"),
        ("A clip: https://example.com/media/clip.mp4?t=3", "A clip:"),
        ("A photo <https://example.com/a/photo.JPG> here", "A photo here"),
        ("![a sleeping cat](https://img.example.com/cat.png)", "a sleeping cat"),
        ("Read [the docs](https://lmstudio.ai/docs) first", "Read the docs first"),
        ("```swift\nlet x = 1\nprint(x)\n```", "A code block in Swift."),
        ("Before\n\n```\nrm -rf build\n```\n\nAfter", "Before\nA code block.\nAfter"),
        ("~~~py\nprint(1)\n~~~", "A code block in Python."),
        ("# Getting started", "Getting started."),
        ("**bold**, *italic*, ~~gone~~ and `code`", "bold, italic, gone and code"),
        ("- item one\n- item two\n1. first", "item one\nitem two\n1. first"),
        ("| name | size |\n|---|:---:|\n| tiny | 1B |", "name, size\ntiny, 1B"),
        ("> A quoted line", "A quoted line"),
        ("Above\n\n---\n\nBelow", "Above\nBelow"),
        (
            "snake_case names, internationalization and version 2024 stay",
            "snake_case names, internationalization and version 2024 stay"
        ),
        ("Short hex like cafe or deadbeef stays", "Short hex like cafe or deadbeef stays")
    ]

    @Test(arguments: cases)
    func readsOnlyWhatIsWorthHearing(markdown: String, spoken: String) {
        #expect(SpeechFilter.speakableText(markdown) == spoken)
    }

    @Test func codeIsNeverReadCharacterByCharacter() {
        let reply = "Here:\n\n```swift\nlet greeting = \"hello\"\nfor index in 0..<3 { print(index) }\n```\n"
        let spoken = SpeechFilter.speakableText(reply)
        #expect(!spoken.contains("greeting"))
        #expect(!spoken.contains("{"))
        #expect(spoken.contains("a code block in Swift") || spoken.contains("A code block in Swift"))
    }
}
