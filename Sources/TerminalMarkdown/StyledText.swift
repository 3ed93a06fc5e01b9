/// A stretch of text with one style and optional hyperlink target, the unit that wrapping works on.
struct StyledRun: Equatable {
    var text: String
    var style: TextStyle
    /// The OSC 8 target, already checked by `LinkPolicy`.
    var link: String?
    /// A hard line break (the text is ignored).
    var isBreak = false
}

/// A wrapped line: its rendered text (with SGR and OSC 8) and its display width.
struct WrappedLine {
    var text: String
    var width: Int
}

/// Greedy word wrapping of styled runs by display width.
struct LineWrapper {
    let level: StyleLevel
    /// Whether runs with a link are wrapped in OSC 8 sequences.
    let hyperlinks: Bool
    /// How the terminal counts columns.
    var widthModel = WidthModel.grapheme

    private enum Token {
        case word([StyledRun], width: Int)
        case space([StyledRun], width: Int)
        case lineBreak
    }

    /// Wraps `runs` into lines no wider than `width` columns (at least 1); words longer than a line are split
    /// between grapheme clusters.
    func wrap(_ runs: [StyledRun], width: Int) -> [WrappedLine] {
        let width = max(width, 1)
        var lines: [[StyledRun]] = [[]]
        var column = 0
        var widths: [Int] = []
        var pendingSpace: [StyledRun] = []
        var pendingSpaceWidth = 0

        func newLine() {
            widths.append(column)
            lines.append([])
            column = 0
        }
        func append(_ run: StyledRun) {
            if let last = lines[lines.count - 1].last, last.style == run.style, last.link == run.link {
                lines[lines.count - 1][lines[lines.count - 1].count - 1].text += run.text
            } else {
                lines[lines.count - 1].append(run)
            }
        }

        for token in tokens(runs) {
            switch token {
            case .lineBreak:
                newLine()
                pendingSpace = []
                pendingSpaceWidth = 0
            case .space(let spaces, let spaceWidth):
                if column > 0 {
                    pendingSpace += spaces
                    pendingSpaceWidth += spaceWidth
                }
            case .word(let pieces, let wordWidth):
                if column > 0 && column + pendingSpaceWidth + wordWidth > width {
                    newLine()
                } else if column > 0 {
                    pendingSpace.forEach(append)
                    column += pendingSpaceWidth
                }
                pendingSpace = []
                pendingSpaceWidth = 0
                if column + wordWidth <= width {
                    pieces.forEach(append)
                    column += wordWidth
                    continue
                }
                for piece in pieces {
                    var chunk = ""
                    for character in piece.text {
                        let characterWidth = DisplayWidth.of(character, model: widthModel)
                        if column + characterWidth > width && column > 0 {
                            append(StyledRun(text: chunk, style: piece.style, link: piece.link))
                            chunk = ""
                            newLine()
                        }
                        chunk.append(character)
                        column += characterWidth
                    }
                    append(StyledRun(text: chunk, style: piece.style, link: piece.link))
                }
            }
        }
        widths.append(column)
        return zip(lines, widths).map { WrappedLine(text: render($0), width: $1) }
    }

    /// The runs as one line, without wrapping.
    func render(_ runs: [StyledRun]) -> String {
        var output = ""
        for run in runs where !run.text.isEmpty {
            let styled = run.style.apply(run.text, at: level)
            if let link = run.link, hyperlinks {
                output += "\u{1B}]8;;\(link)\u{1B}\\" + styled + "\u{1B}]8;;\u{1B}\\"
            } else {
                output += styled
            }
        }
        return output
    }

    private func tokens(_ runs: [StyledRun]) -> [Token] {
        var tokens: [Token] = []
        var word: [StyledRun] = []
        var wordWidth = 0
        func flushWord() {
            if !word.isEmpty { tokens.append(.word(word, width: wordWidth)) }
            word = []
            wordWidth = 0
        }
        for run in runs {
            if run.isBreak {
                flushWord()
                tokens.append(.lineBreak)
                continue
            }
            var segment = ""
            var segmentIsSpace = false
            func flushSegment() {
                guard !segment.isEmpty else { return }
                var piece = run
                piece.text = segment
                if segmentIsSpace {
                    flushWord()
                    tokens.append(.space([piece], width: segment.utf8.count))
                } else {
                    word.append(piece)
                    wordWidth += DisplayWidth.of(segment, model: widthModel)
                }
                segment = ""
            }
            for character in run.text {
                let isSpace = character == " " || character == "\t" || character == "\n"
                if isSpace != segmentIsSpace { flushSegment() }
                segmentIsSpace = isSpace
                segment.append(isSpace ? " " : character)
            }
            flushSegment()
        }
        flushWord()
        return tokens
    }
}
