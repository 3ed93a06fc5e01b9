/// Greedy word wrapping of styled runs by display width.
///
/// The runs are read once, byte by byte: a stretch of ASCII is measured without forming grapheme clusters, so is a
/// code point that is a cluster of its own by `GraphemeBoundary` (most letters, CJK, kana, Hangul, single emoji), and
/// only the rest (marks, emoji sequences, flags, jamo) is taken a cluster at a time.
/// Lines are rendered as they fill, so wrapping allocates per line and per style change, not per word.
struct LineWrapper {
    let level: StyleLevel
    /// Whether runs with a link are wrapped in OSC 8 sequences.
    let hyperlinks: Bool
    /// How the terminal counts columns.
    var widthModel = WidthModel.grapheme
    /// Bytes a line's text usually takes, reserved up front so a line grows without copies.
    static let lineBytesHint = 256

    /// Wraps `runs` into lines no wider than `width` columns (at least 1); words longer than a line are split
    /// between grapheme clusters. Spaces, tabs and newlines between words print as single-column spaces, and the
    /// spaces where a line breaks are dropped.
    func wrap(_ runs: [StyledRun], width: Int) -> [WrappedLine] {
        lay(runs, width: max(width, 1), measuring: false)
    }

    /// The lines of `wrap(_:width:)` without their widths, collected as they are made (no second array).
    func wrappedText(_ runs: [StyledRun], width: Int) -> [String] {
        if runs.count == 1, let line = singleLine(runs[0], width: max(width, 1), measuring: false) {
            return [line.text]
        }
        var layout = Layout(wrapper: self, runs: runs, width: max(width, 1), measuring: false, keepsWidths: false)
        layout.read()
        return layout.finishTexts()
    }

    /// The width of the widest line of `runs` laid out without a width limit (split only at hard breaks), measured
    /// without rendering the lines.
    func widestLine(_ runs: [StyledRun]) -> Int {
        if runs.count == 1, let line = singleLine(runs[0], width: Int.max / 2, measuring: true) { return line.width }
        var widest = 0
        for line in lay(runs, width: Int.max / 2, measuring: true) { widest = max(widest, line.width) }
        return widest
    }

    /// Lays `runs` out in lines of at most `width` columns; when `measuring`, the lines have widths but no text.
    private func lay(_ runs: [StyledRun], width: Int, measuring: Bool) -> [WrappedLine] {
        if runs.count == 1, let line = singleLine(runs[0], width: width, measuring: measuring) { return [line] }
        var layout = Layout(wrapper: self, runs: runs, width: width, measuring: measuring, keepsWidths: true)
        layout.read()
        return layout.finish()
    }

    /// The width of the one line `run` makes when it is such a run (see `singleLine`), measured without making it;
    /// nil for any other run.
    func singleLineWidth(_ run: StyledRun, width: Int) -> Int? {
        singleLine(run, width: width, measuring: true)?.width
    }

    /// The one line that the layout makes of a run of printable ASCII words with single spaces between them that fits
    /// `width` (a table cell, a list item, a short heading or quote), made without the layout's buffers; nil for any
    /// other run.
    private func singleLine(_ run: StyledRun, width: Int, measuring: Bool) -> WrappedLine? {
        guard !run.isBreak, !(hyperlinks && run.link != nil) else { return nil }
        let utf8 = run.text.utf8
        guard utf8.count <= width, utf8.first != 0x20, utf8.last != 0x20 else { return nil }
        // Read from the string's contiguous UTF-8 (a native string's; a bridged one is read through its view).
        let isOneLine = { (bytes: UnsafeBufferPointer<UInt8>) -> Bool in
            var previous: UInt8 = 0
            for byte in bytes {
                guard byte >= 0x20, byte < 0x7F, byte != 0x20 || previous != 0x20 else { return false }
                previous = byte
            }
            return true
        }
        guard utf8.withContiguousStorageIfAvailable(isOneLine) ?? Array(utf8).withUnsafeBufferPointer(isOneLine)
        else { return nil }
        return WrappedLine(text: measuring ? "" : run.style.apply(run.text, at: level), width: utf8.count)
    }

    /// The SGR and OSC 8 sequences that open and close each run's span, built once per `wrap` so that lines are
    /// assembled by copying bytes.
    fileprivate struct Spans {
        private static let hyperlinkStart: [UInt8] = Array("\u{1B}]8;;".utf8)
        private static let stringTerminator: [UInt8] = Array("\u{1B}\\".utf8)
        private static let hyperlinkEnd = hyperlinkStart + stringTerminator

        /// The opening and closing sequences of every span, which `bounds` point into.
        private(set) var sequences: [UInt8] = []
        /// For each run, where its span's opening sequence starts, where it ends and its closing one starts, and where
        /// that ends. A run with text shares the span (the same bounds) of the last run with text before it when their
        /// style and link are the same, since nothing can print between them (an empty run prints nothing, and a
        /// break ends the line and its span).
        private var bounds: [(start: Int, middle: Int, end: Int)] = []

        init(_ runs: [StyledRun], wrapper: LineWrapper, measuring: Bool) {
            guard !measuring else { return }
            bounds.reserveCapacity(runs.count)
            sequences.reserveCapacity(runs.count * 16)
            var lastWithText: Int?
            for (index, run) in runs.enumerated() {
                defer { if !run.isBreak && !run.text.isEmpty { lastWithText = index } }
                if let last = lastWithText, run.style == runs[last].style, run.link == runs[last].link {
                    bounds.append(bounds[last])
                    continue
                }
                let open = sequences.count
                let link = wrapper.hyperlinks ? run.link : nil
                if let link {
                    sequences += Self.hyperlinkStart
                    sequences += link.utf8
                    sequences += Self.stringTerminator
                }
                let styled = run.style.appendOpening(at: wrapper.level, to: &sequences)
                let close = sequences.count
                if styled { sequences += TextStyle.reset }
                if link != nil { sequences += Self.hyperlinkEnd }
                bounds.append((open, close, sequences.count))
            }
        }

        /// Whether runs `first` and `second` print in one span (spans that differ have different sequences).
        func shareSpan(_ first: Int, _ second: Int) -> Bool { bounds[first] == bounds[second] }

        /// The bytes of `sequences` that open the span of run `run`.
        func opening(_ run: Int) -> Range<Int> { bounds[run].start..<bounds[run].middle }

        /// The bytes of `sequences` that close the span of run `run`.
        func closing(_ run: Int) -> Range<Int> { bounds[run].middle..<bounds[run].end }
    }

    /// A rendered line being built: adjacent text with the same style and link shares one SGR span (and one OSC 8
    /// hyperlink), opened before its first piece and closed when the style changes or the line ends. Pieces that lie
    /// next to each other in one run's text (words and the plain spaces between them) are kept as one range and
    /// copied once, straight into the line's bytes.
    fileprivate struct LineText {
        let spans: Spans
        let runs: [StyledRun]
        /// When true nothing is kept: only the layout's widths are wanted.
        var measuring = false
        private var bytes: [UInt8] = []
        /// A run whose span is open (see `Spans.bounds`); nil when none is.
        private var openRun: Int?
        /// The stretch of one run's text appended last and not yet copied into `bytes`.
        private var stretch: (run: Int, range: Range<Int>)?

        init(spans: Spans, runs: [StyledRun]) {
            self.spans = spans
            self.runs = runs
        }

        /// Appends the text of run `run` at UTF-8 offsets `range`.
        mutating func append(run: Int, _ range: Range<Int>) {
            guard !measuring, !range.isEmpty else { return }
            if let stretch, stretch.run == run, stretch.range.upperBound == range.lowerBound {
                self.stretch = (run, stretch.range.lowerBound..<range.upperBound)
                return
            }
            copyStretch()
            stretch = (run, range)
        }

        /// Appends `count` spaces in the style of run `run`.
        mutating func append(spaces count: Int, run: Int) {
            guard !measuring, count > 0 else { return }
            copyStretch()
            open(run)
            bytes.append(contentsOf: repeatElement(0x20, count: count))
        }

        /// The finished line; the builder starts empty again.
        mutating func finish() -> String {
            copyStretch()
            closeSpan()
            defer { bytes.removeAll(keepingCapacity: true) }
            // The bytes are whole clusters of valid UTF-8 and complete sequences.
            return String(assembledUTF8: bytes.span)
        }

        private mutating func copyStretch() {
            guard let stretch else { return }
            self.stretch = nil
            open(stretch.run)
            let utf8 = runs[stretch.run].text.utf8
            let copied: Void? = utf8.withContiguousStorageIfAvailable {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[stretch.range]))
            }
            if copied == nil { bytes += utf8.dropFirst(stretch.range.lowerBound).prefix(stretch.range.count) }
        }

        /// Makes the open span that of run `run`: closes one that differs, and opens one if none is open.
        private mutating func open(_ run: Int) {
            if let openRun, spans.shareSpan(openRun, run) { return }
            closeSpan()
            if bytes.isEmpty { bytes.reserveCapacity(LineWrapper.lineBytesHint) }
            appendSequence(spans.opening(run))
            openRun = run
        }

        /// Copies the bytes of `spans.sequences` in `range` without forming a slice (which retained the buffer).
        private mutating func appendSequence(_ range: Range<Int>) {
            spans.sequences.withUnsafeBufferPointer {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range]))
            }
        }

        private mutating func closeSpan() {
            guard let openRun else { return }
            self.openRun = nil
            appendSequence(spans.closing(openRun))
        }
    }

    /// The state of one `wrap`: the line being filled, the word being read and the spaces before it.
    private struct Layout {
        let wrapper: LineWrapper
        let runs: [StyledRun]
        let width: Int
        /// Whether the finished lines keep their widths (`lines`) or only their text (`texts`).
        let keepsWidths: Bool
        var lines: [WrappedLine] = []
        var texts: [String] = []
        var line: LineText
        var column = 0
        /// The word read so far: pieces of runs (run index and UTF-8 offsets), and its width.
        var word = InlineFirst<(run: Int, range: Range<Int>)>()
        var wordWidth = 0
        /// Spaces read since the last word, per run: their UTF-8 offsets in the run's text, how many they are and
        /// whether they are all U+0020 (and so print as they are written); and their width (one column each).
        var spaces = InlineFirst<(run: Int, start: Int, end: Int, count: Int, plain: Bool)>()
        var spaceWidth = 0

        init(wrapper: LineWrapper, runs: [StyledRun], width: Int, measuring: Bool, keepsWidths: Bool) {
            self.wrapper = wrapper
            self.runs = runs
            self.width = width
            self.keepsWidths = keepsWidths
            line = LineText(spans: Spans(runs, wrapper: wrapper, measuring: measuring), runs: runs)
            line.measuring = measuring
            // Room for the lines the text's bytes fill at the width (a column takes at least a byte), so that a
            // paragraph's lines are collected without growing the array.
            var bytes = 0
            for run in runs { bytes += run.text.utf8.count }
            let expected = bytes / width + 1
            if keepsWidths { lines.reserveCapacity(expected) } else { texts.reserveCapacity(expected) }
        }

        /// Reads every run, placing each word and breaking the line at each hard break.
        mutating func read() {
            for index in runs.indices {
                if runs[index].isBreak {
                    placeWord()
                    breakLine()
                } else {
                    scan(run: index)
                }
            }
            placeWord()
        }

        /// Reads one run's text, placing each word when the space after it (or the run's end) is reached.
        mutating func scan(run index: Int) {
            let text = runs[index].text
            var contiguous = text
            // A native string is already contiguous UTF-8 (nothing is copied); a bridged one is copied once.
            contiguous.withUTF8 { scan(run: index, text, bytes: $0) }
        }

        /// `scan(run:)` over the run's UTF-8 `bytes`, by offset: a stretch of printable ASCII is added to the word at
        /// once, and a code point that `GraphemeBoundary` shows to be a cluster of its own is measured alone; only
        /// the rest (combining marks, emoji sequences, flags, jamo, CRLF) is taken a grapheme cluster of `text` at a
        /// time.
        private mutating func scan(run index: Int, _ text: String, bytes: UnsafeBufferPointer<UInt8>) {
            let utf8 = text.utf8
            func stringIndex(_ offset: Int) -> String.Index { utf8.index(utf8.startIndex, offsetBy: offset) }
            var position = 0
            var wordStart: Int?
            while position < bytes.count {
                let byte = bytes[position]
                if byte > 0x20 && byte < 0x7F {
                    var end = position + 1
                    while end < bytes.count && bytes[end] > 0x20 && bytes[end] < 0x7F { end += 1 }
                    // A mark may join the last byte before non-ASCII text: that byte is left to the steps below.
                    if end < bytes.count && bytes[end] >= 0x80 { end -= 1 }
                    if end > position {
                        if wordStart == nil { wordStart = position }
                        wordWidth += end - position
                        position = end
                        continue
                    }
                }
                let scalar = Self.scalar(in: bytes, at: position)
                let clusterEnd: Int
                let isSpace: Bool
                let clusterWidth: Int
                if scalar.end == bytes.count
                    || GraphemeBoundary.endsBefore(after: scalar.value)
                        && (bytes[scalar.end] < 0x80
                            || GraphemeBoundary.startsCluster(Self.scalar(in: bytes, at: scalar.end).value))
                {
                    clusterEnd = scalar.end
                    isSpace = byte == 0x20 || byte == 0x09 || byte == 0x0A
                    if byte < 0x80 {
                        clusterWidth = byte < 0x20 || byte == 0x7F ? 0 : 1
                    } else {
                        clusterWidth = DisplayWidth.of(Unicode.Scalar(scalar.value)!)
                    }
                } else {
                    let cluster = stringIndex(position)
                    clusterEnd = utf8.distance(from: utf8.startIndex, to: text.index(after: cluster))
                    // A space is a cluster of its own unless a combining mark follows it.
                    isSpace = clusterEnd == scalar.end && (byte == 0x20 || byte == 0x09 || byte == 0x0A)
                    clusterWidth = DisplayWidth.of(text[cluster], model: wrapper.widthModel)
                }
                if isSpace {
                    if let start = wordStart {
                        word.append((index, start..<position))
                        wordStart = nil
                    }
                    placeWord()
                    if column > 0 {
                        if let last = spaces.last, last.run == index, last.end == position {
                            spaces.updateLast { space in
                                space.end = clusterEnd
                                space.count += 1
                                space.plain = space.plain && byte == 0x20
                            }
                        } else {
                            spaces.append((index, position, clusterEnd, 1, byte == 0x20))
                        }
                        spaceWidth += 1
                    }
                } else {
                    if wordStart == nil { wordStart = position }
                    wordWidth += clusterWidth
                }
                position = clusterEnd
            }
            if let start = wordStart { word.append((index, start..<bytes.count)) }
        }

        /// The code point whose UTF-8 encoding starts at `offset` in the valid UTF-8 `bytes`, and the offset after it.
        private static func scalar(in bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> (value: UInt32, end: Int) {
            let lead = UInt32(bytes[offset])
            if lead < 0x80 { return (lead, offset + 1) }
            let length = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
            var value = lead & (0x7F >> UInt32(length))
            for index in offset + 1..<offset + length { value = value << 6 | UInt32(bytes[index] & 0x3F) }
            return (value, offset + length)
        }

        /// Puts the word read so far on the line, after the pending spaces, or on a new line when it does not fit
        /// (split between clusters when it is wider than a line).
        mutating func placeWord() {
            guard !word.isEmpty else { return }
            if column > 0 && column + spaceWidth + wordWidth > width {
                newLine()
            } else if column > 0 {
                for space in spaces {
                    if space.plain {
                        line.append(run: space.run, space.start..<space.end)
                    } else {
                        line.append(spaces: space.count, run: space.run)
                    }
                }
                column += spaceWidth
            }
            spaces.removeAll()
            spaceWidth = 0
            if column + wordWidth <= width {
                for piece in word { line.append(run: piece.run, piece.range) }
                column += wordWidth
            } else {
                for piece in word { split(piece) }
            }
            word.removeAll()
            wordWidth = 0
        }

        /// A hard break: the line ends here and the spaces before it are dropped.
        mutating func breakLine() {
            newLine()
            spaces.removeAll()
            spaceWidth = 0
        }

        /// The lines, the last one included.
        mutating func finish() -> [WrappedLine] {
            lines.append(WrappedLine(text: line.finish(), width: column))
            return lines
        }

        /// The texts of the lines, the last one included (for a layout that does not keep widths).
        mutating func finishTexts() -> [String] {
            texts.append(line.finish())
            return texts
        }

        private mutating func newLine() {
            if keepsWidths {
                lines.append(WrappedLine(text: line.finish(), width: column))
            } else {
                texts.append(line.finish())
            }
            column = 0
        }

        /// Places a piece of a word too wide for a line (CJK text, which has no spaces, is one), starting a new line
        /// before each cluster that overflows. As CJK typesetting does (UAX #14 classes CL, CP, IS, EX, NS and OP),
        /// closing punctuation never starts a line and opening punctuation never ends one: the cluster before the
        /// break goes down with it.
        private mutating func split(_ piece: (run: Int, range: Range<Int>)) {
            let text = runs[piece.run].text
            let utf8 = text.utf8
            func offset(_ index: String.Index) -> Int { utf8.distance(from: utf8.startIndex, to: index) }
            let end = utf8.index(utf8.startIndex, offsetBy: piece.range.upperBound)
            var chunkStart = piece.range.lowerBound
            var position = utf8.index(utf8.startIndex, offsetBy: piece.range.lowerBound)
            var previous: (index: String.Index, width: Int)?
            while position < end {
                let character = text[position]
                let characterWidth = DisplayWidth.of(character, model: wrapper.widthModel)
                if column + characterWidth > width && column > 0 {
                    var cut = position
                    var carried = 0
                    if let previous, offset(previous.index) > chunkStart, previous.width < column,
                        LineBreakRules.mayNotStartLine(character) || LineBreakRules.mayNotEndLine(text[previous.index])
                    {
                        cut = previous.index
                        carried = previous.width
                    }
                    line.append(run: piece.run, chunkStart..<offset(cut))
                    chunkStart = offset(cut)
                    column -= carried
                    newLine()
                    column = carried
                }
                column += characterWidth
                previous = (position, characterWidth)
                position = text.index(after: position)
            }
            line.append(run: piece.run, chunkStart..<piece.range.upperBound)
        }
    }
}

/// A short list that keeps its first element inline: most words are one piece and most gaps between words one
/// space, and emptying an array for every word cost more than reading the word.
private struct InlineFirst<Element>: Sequence {
    private var first: Element?
    private var rest: [Element] = []

    var isEmpty: Bool { first == nil }
    var last: Element? { rest.last ?? first }

    mutating func append(_ element: Element) {
        if first == nil { first = element } else { rest.append(element) }
    }

    /// Changes the last element in place; nothing when the list is empty.
    mutating func updateLast(_ change: (inout Element) -> Void) {
        if !rest.isEmpty {
            change(&rest[rest.count - 1])
        } else if var element = first {
            change(&element)
            first = element
        }
    }

    mutating func removeAll() {
        first = nil
        if !rest.isEmpty { rest.removeAll(keepingCapacity: true) }
    }

    func makeIterator() -> Iterator { Iterator(first: first, rest: rest.makeIterator()) }

    struct Iterator: IteratorProtocol {
        var first: Element?
        var rest: IndexingIterator<[Element]>

        mutating func next() -> Element? {
            if let element = first {
                first = nil
                return element
            }
            return rest.next()
        }
    }
}

/// The CJK line-breaking prohibitions of UAX #14 the wrapper keeps (kinsoku): which characters may not start a line
/// (closing punctuation CL and CP, infix separators IS, exclamations EX, small kana and iteration marks NS) and
/// which may not end one (opening punctuation OP).
enum LineBreakRules {
    static func mayNotStartLine(_ character: Character) -> Bool {
        character.unicodeScalars.first.map { closing.contains($0) } ?? false
    }

    static func mayNotEndLine(_ character: Character) -> Bool {
        character.unicodeScalars.first.map { opening.contains($0) } ?? false
    }

    private static let closing = Set(
        "、。，．：；！？）」』】〕〉》〙〗〛｝］〟｠»›’”…‥ー々〻ゝゞヽヾ・ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶ゠！？),.:;!?]}%".unicodeScalars)
    private static let opening = Set("（「『【〔〈《〘〖〚｛［〝｟«‹‘“([{".unicodeScalars)
}
