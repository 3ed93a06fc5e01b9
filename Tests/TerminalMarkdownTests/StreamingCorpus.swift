/// Documents for the streaming oracle only (streamed screen = whole render): the constructs that used to stream
/// differently from the whole render. Not rendered to golden files.
enum StreamingCorpus {
    static let documents: [(name: String, text: String)] = [
        ("html-comment", "Intro.\n\n<!-- note -->\n\nMore text here.\n\nAnd a final paragraph."),
        ("html-list-separator", "- foo\n- bar\n\n<!-- -->\n\n- baz"),
        ("html-blocks", """
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
            """),
        ("references-after-use", """
            Rust is memory-safe [1]. Go has a GC [2].

            Both compile to native code.

            [1]: https://doc.rust-lang.org/book/
            [2]: https://go.dev/doc/gc-guide
            """),
        ("references-before-use", """
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
            """),
    ]
}
