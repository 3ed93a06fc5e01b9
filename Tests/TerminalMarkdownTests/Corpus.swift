/// Markdown documents covering every construct the renderer handles, shared by golden and streaming tests.
enum Corpus {
    static let documents: [(name: String, text: String)] = [
        (
            "headings",
            """
            # Streaming Markdown in the terminal

            Some intro text with *emphasis*, **strong words**, ~~struck out~~ and `inline code`.

            ## Second level

            ### Third level with `code`

            #### Fourth level

            Setext heading
            ==============

            Text after.
            """
        ),
        (
            "paragraphs",
            """
            A long paragraph that has to wrap at the terminal width because it keeps going and going, with \
            words of varying length such as supercalifragilisticexpialidocious and a URL-like token \
            https://example.com/a/very/long/path/that/does/not/fit/anywhere/on/one/line/at/all/even/at/eighty.
            This line follows a soft break.\\
            And this one a hard break.

            混合テキスト：日本語の文章と中文句子，以及한국어 문장。全角文字は二桁を占めます。折り返しが正しく行われるか確認します。

            Emoji: 👨‍👩‍👧‍👦 family, 🇯🇵 flag, 👍🏽 thumbs, ❤️ heart, e\u{301} combining, tab\there.
            """
        ),
        (
            "code",
            """
            Before the code.

            ```swift
            func greet(_ name: String) -> String {
            \t"Hello, \\(name)!" // a tab-indented line that is rather long and will exceed forty columns easily
            }
            ```

            ~~~
            plain fence with tildes
            ~~~

                indented code block
                second line

            ```python
            print("unclosed fence at the end")
            """
        ),
        (
            "lists",
            """
            - first bullet
            - second bullet with a long text that needs to wrap around when the terminal is narrow enough
              - nested bullet
                - deeper bullet
              - back one level
            - third bullet

            1. one
            2. two
               1. two point one
               2. two point two
            3. three

            7) seven
            8) eight

            - [ ] open task
            - [x] done task
            - [ ] task with **bold**

            * loose item one

            * loose item two

              with a second paragraph
            """
        ),
        (
            "quotes",
            """
            > A block quote with *style* and a long line that wraps inside the quote bar when narrow.
            >
            > > A nested quote.
            >
            > - a list in a quote
            > - another item

            ---

            ***

            After the rules.
            """
        ),
        (
            "tables",
            """
            | Name | Size | Notes |
            |:-----|-----:|:-----:|
            | alpha | 1 KB | first |
            | beta | 22 KB | second, with a **bold** cell |
            | 日本語 | 333 KB | wide 🇯🇵 |

            | a very wide column that will not fit | another very wide column that also does not fit | third column text |
            |---|---|---|
            | short | cell contents that go on and on and on and on | x |

            | k | v |
            |---|---|
            | 1 | one |
            | 2 | two |
            | 3 | three |
            | 4 | four |
            | 5 | five |
            | 6 | six |
            | 7 | seven |
            | 8 | eight |
            | 9 | nine |
            | 10 | ten |
            | 11 | eleven, wider than any earlier row in this table |
            | 12 | twelve |
            """
        ),
        (
            "links",
            """
            An [inline link](https://example.com/docs?q=1) and an autolink https://swift.org and \
            <mailto:someone@example.com> and [same](https://same.example) text, plus \
            [a script](javascript:alert(1)) and ![an image](https://example.com/cat.png "Cat").

            [ref]: https://example.org/reference

            [Reference link][ref] to somewhere.

            <div class="raw">raw <b>HTML</b> block</div>

            Inline <span>html</span> stays text.
            """
        ),
        (
            "edge-cases",
            """
            Intro text
            | a | b |
            |---|---|
            | 1 | 2 |
            lazy row
            after table without blank

            | n | v |
            |---|---|
            | 1 | one |
            | 2 | two |
            | 3 | three |
            | 4 | four |
            | 5 | five |
            | 6 | six |
            | 7 | seven |
            | 8 | eight |
            | 9 | nine |
            | 10 | ten |
            | 11 | eleven |
            Paragraph glued to the table
            | x | y |
            |---|---|
            | p | q |

            5. five
            5. six
            5. seven

               second paragraph of seven
            5. eight
            - bullet after ordered

            ~~~~ text
            code with ``` inside
            ~~~~~

              ```js
              indented fence
                more indented
              ```

            > quote line
            lazy continuation
            > > nested

            <!-- comment -->

            ```
            unclosed at the end

            """
        ),
        (
            "mixed",
            """
            # Report

            Intro paragraph.

            1. Step one
            2. Step two:
               ```sh
               make build
               ```
            3. Step three

            | Col | Val |
            |-----|-----|
            | a | 1 |

            > Quote after table.

            Final words with 中文 and 🎉.
            """
        )
    ]
}
