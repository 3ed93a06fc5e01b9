/// Documents for the streaming oracle only (streamed screen = whole render): the constructs that used to stream
/// differently from the whole render. Not rendered to golden files.
enum StreamingCorpus {
    static let documents: [(name: String, text: String)] = [
        ("html-comment", "Intro.\n\n<!-- note -->\n\nMore text here.\n\nAnd a final paragraph."),
        ("html-list-separator", "- foo\n- bar\n\n<!-- -->\n\n- baz"),
        (
            "html-blocks",
            """
            Intro.
            <!-- a comment
            over two lines -->
            After the comment.

            <pre>
            keep
              this</pre>
            after pre

            <?php echo 1; ?>
            <!DOCTYPE html>
            <![CDATA[
            x < y
            ]]>
            <script type="x">
            var a = 1;
            </script>
            <style>p { color: red }</style>

            <STYLE>
            p {}
            </style>
            Text after style.

            <textarea>

            *emphasis* inside
            </textarea>

            <!-- unclosed at the end
            still a comment
            """
        ),
        (
            "references-after-use",
            """
            Rust is memory-safe [1]. Go has a GC [2].

            Both compile to native code.

            [1]: https://doc.rust-lang.org/book/
            [2]: https://go.dev/doc/gc-guide
            """
        ),
        (
            "references-before-use",
            """
            [x]: https://x.example

            A [a][x]

            B [b][x]

            - item [c][x]
            - [Y] before its definition

            > quoted [x]

            | col |
            |-----|
            | [d][x] |

            [y]: https://y.example "Title"
            Text in the same paragraph as a definition, using [y] and [z].

            [z]:
            https://z.example
            """
        )
    ]

    /// One paragraph of 1,800 lines (75 KB), past `MarkdownStream.fallbackLimit`.
    static let longParagraph = (0..<1800).map { "line \($0): the quick brown fox *lazy* dog" }.joined(separator: "\n")

    /// Documents past `MarkdownStream.containerLimit` or `fallbackLimit` inside one block quote or list item.
    static let longContainers: [(name: String, text: String)] = [
        (
            "long-quote",
            (0..<2500).map { "> line \($0): a quoted paragraph with *some* words" }.joined(separator: "\n>\n")
        ),
        (
            "fence-in-list-item",
            "1. Step one\n2. Build it:\n\n   ```sh\n"
                + (0..<2000).map { "   make target\($0)" }.joined(separator: "\n")
                + "\n   ```\n3. Done\n\nAfter the list."
        ),
        (
            "mixed-quote",
            (0..<60).map { number in
                """
                > ## Part \(number)
                > A paragraph with *emphasis* and a lazy
                continuation line [\(number)].
                >
                > - item a
                > - item b
                >   > nested quote
                >
                > ```
                > code \(number)
                > ```
                > | a | b |
                > |---|---|
                > | \(number) | x |
                """
            }.joined(separator: "\n>\n") + "\n\nOutside.\n\n[7]: https://seven.example\n"
        ),
        (
            "long-task-item",
            "- [ ] first task\n- [x] "
                + (0..<80).map { number in
                    """
                    step \(number) with text that goes on for a while
                      - nested \(number)
                      - nested again

                      ```js
                      call(\(number))
                      ```

                    """.replacing("\n", with: "\n  ")
                }.joined() + "\n- [ ] last task\n\n1. ordered after\n"
        )
    ]
}
