/// One source line, without its newline, read as CommonMark's block rules read the start of a line: columns
/// count with tabs at 4-column stops, and a tab that a marker or indentation consumes only partly leaves its
/// other columns as spaces. It says what the line opens with (a block quote marker, a list item marker, a code
/// fence, a heading, a thematic break) and where the text after that starts.
///
/// `MarkdownStream` decides with it, line by line, where an open container or fence goes on; cmark-gfm (through
/// `MarkdownParser`) decides everything else. It reads the line's UTF-8 bytes in place and copies nothing. A
/// carriage return, which `UntrustedText` removes before cmark-gfm sees the text, counts as white space where
/// the rest of a line must be blank.
package struct MarkdownLine {
    package let bytes: Substring.UTF8View

    package init(_ line: Substring) {
        bytes = line.utf8
    }

    /// A place in the line: the byte at `index` starts at `column`; the `padding` columns before that are what is
    /// left of a tab consumed only partly, and read as spaces.
    package struct Position: Equatable {
        package var index: String.Index
        package var column: Int
        package var padding = 0
    }

    /// A code fence's opening line: its character (backtick or tilde), how many of them, and the columns before them.
    package struct Fence: Equatable {
        package var character: UInt8
        package var length: Int
        package var indent: Int
    }

    /// A list item's marker.
    package struct ListMarker: Equatable {
        /// The bullet (`-`, `+`, `*`), or the delimiter (`.`, `)`) after an ordered item's number.
        package var marker: UInt8
        /// The column the item's content starts at: its later lines belong to it when indented that far.
        package var contentIndent: Int
        /// Nothing but white space follows the marker.
        package var isEmpty: Bool
    }

    /// Only white space.
    package var isBlank: Bool { bytes.allSatisfy(Self.isWhiteSpace) }

    /// Where the line's first byte that is not a space or tab starts (the end of a blank line).
    package var firstNonSpace: Position { skippingSpaces(from: Position(index: bytes.startIndex, column: 0)) }

    /// The columns of white space the line starts with.
    package var indentation: Int { firstNonSpace.column }

    /// Where the text after a block quote marker (`>` and one optional space) starts; nil without the marker.
    package var quoteContent: Position? {
        let marker = firstNonSpace
        guard marker.column <= 3, byte(at: marker.index) == 0x3E else { return nil }
        let index = bytes.index(after: marker.index)
        let column = marker.column + 1
        switch byte(at: index) {
        case 0x20: return Position(index: bytes.index(after: index), column: column + 1)
        case 0x09:
            let width = Self.tabWidth(at: column)
            return Position(index: bytes.index(after: index), column: column + width, padding: width - 1)
        default: return Position(index: index, column: column)
        }
    }

    /// The list item marker the line starts with; nil without one, or when the line is a thematic break (`- - -`).
    package var listMarker: ListMarker? {
        let start = firstNonSpace
        guard start.column <= 3, let first = byte(at: start.index), !isThematicBreak else { return nil }
        var index = start.index
        var column = start.column
        let marker: UInt8
        if first == 0x2D || first == 0x2B || first == 0x2A {
            marker = first
        } else {
            var digits = 0
            while digits < 9, let digit = byte(at: index), Self.isDigit(digit) {
                bytes.formIndex(after: &index)
                digits += 1
            }
            guard digits > 0, let delimiter = byte(at: index), delimiter == 0x2E || delimiter == 0x29 else {
                return nil
            }
            marker = delimiter
            column += digits
        }
        bytes.formIndex(after: &index)
        column += 1
        let text = skippingSpaces(from: Position(index: index, column: column))
        let isEmpty = bytes[text.index...].allSatisfy(Self.isWhiteSpace)
        guard isEmpty || text.column > column else { return nil }
        let contentIndent = isEmpty || text.column - column >= 5 ? column + 1 : text.column
        return ListMarker(marker: marker, contentIndent: contentIndent, isEmpty: isEmpty)
    }

    /// The code fence the line opens; nil when it opens none (a backtick fence's info string has no backticks).
    package var fence: Fence? {
        let start = firstNonSpace
        guard start.column <= 3, let character = byte(at: start.index), character == 0x60 || character == 0x7E else {
            return nil
        }
        let (length, rest) = run(of: character, from: start.index)
        guard length >= 3, character == 0x7E || !bytes[rest...].contains(0x60) else { return nil }
        return Fence(character: character, length: length, indent: start.column)
    }

    /// Whether the line closes `fence`: at most three columns in, at least as many of its character, then nothing.
    package func closes(_ fence: Fence) -> Bool {
        let start = firstNonSpace
        guard start.column <= 3 else { return false }
        let (length, rest) = run(of: fence.character, from: start.index)
        return length >= fence.length && bytes[rest...].allSatisfy(Self.isWhiteSpace)
    }

    /// A line of three or more `*`, `-` or `_` (the same one), with spaces or tabs between, at most three columns in.
    package var isThematicBreak: Bool {
        let start = firstNonSpace
        guard start.column <= 3, let character = byte(at: start.index),
            character == 0x2A || character == 0x2D || character == 0x5F
        else { return false }
        var count = 0
        for byte in bytes[start.index...] {
            if byte == character {
                count += 1
            } else if !Self.isWhiteSpace(byte) {
                return false
            }
        }
        return count >= 3
    }

    /// An ATX heading's opening: one to six `#`, at most three columns in, then white space or the line's end.
    package var isATXHeading: Bool {
        let start = firstNonSpace
        guard start.column <= 3, byte(at: start.index) == 0x23 else { return false }
        let (length, rest) = run(of: 0x23, from: start.index)
        return length <= 6 && byte(at: rest).map(Self.isWhiteSpace) ?? true
    }

    /// Whether the line may continue a paragraph left open inside a container whose marker the line lacks (a lazy
    /// continuation line): false for a blank line and for one that opens a block of its own there (a quote marker,
    /// any list item, a heading, a fence, a thematic break); whether a paragraph is open is not the line's to say.
    ///
    /// Where the container's marker is missing, cmark-gfm looks for block starts in the container's parent, which
    /// is never a paragraph, so an ordered item starting at any number or an empty item interrupts too. HTML block
    /// starts (which interrupt there as well) are left to the parser.
    package var canContinueLazily: Bool {
        guard !isBlank else { return false }
        guard indentation < 4 else { return true }
        return quoteContent == nil && listMarker == nil && fence == nil && !isThematicBreak && !isATXHeading
    }

    /// The place `column` columns from the line's start (the line's end when it is shorter); a tab reaching past
    /// `column` is consumed, its other columns left as padding.
    package func position(atColumn column: Int) -> Position {
        var index = bytes.startIndex
        var current = 0
        while current < column, let byte = byte(at: index) {
            let next = byte == 0x09 ? current + Self.tabWidth(at: current) : current + 1
            bytes.formIndex(after: &index)
            if next > column { return Position(index: index, column: next, padding: next - column) }
            current = next
        }
        return Position(index: index, column: current)
    }

    /// The line's end.
    package var end: Position { position(atColumn: Int.max) }

    /// Where the text after a task list item's box (`[ ]`, `[x]` or `[X]`) and the spaces after it starts, for a box
    /// at `position`; nil when there is none.
    package func afterTaskBox(at position: Position) -> Position? {
        var index = position.index
        guard position.padding == 0, byte(at: index) == 0x5B else { return nil }
        bytes.formIndex(after: &index)
        guard let mark = byte(at: index), mark == 0x20 || mark == 0x78 || mark == 0x58 else { return nil }
        bytes.formIndex(after: &index)
        guard byte(at: index) == 0x5D else { return nil }
        bytes.formIndex(after: &index)
        var column = position.column + 3
        while byte(at: index) == 0x20 {
            column += 1
            bytes.formIndex(after: &index)
        }
        return Position(index: index, column: column)
    }

    /// Appends the line from `position` on to `text`, its padding as spaces first.
    package func appendText(from position: Position, to text: inout String) {
        if position.padding > 0 { text += String(repeating: " ", count: position.padding) }
        text += Substring(bytes[position.index...])
    }

    /// Appends a container's content, the line from `position` on, to `text`: the padding as spaces, and the tabs
    /// among the markers and white space right after it widened to spaces at this line's tab stops, so that the
    /// content read from its own column 0 (by a nested container's stream) keeps the columns cmark-gfm counts.
    package func appendContent(from position: Position, to text: inout String) {
        if position.padding > 0 { text += String(repeating: " ", count: position.padding) }
        var index = position.index
        var column = position.column
        var copied = index
        while let byte = byte(at: index), Self.isMarkerOrSpace(byte) {
            if byte == 0x09 {
                text += Substring(bytes[copied..<index])
                let width = Self.tabWidth(at: column)
                text += String(repeating: " ", count: width)
                column += width
                bytes.formIndex(after: &index)
                copied = index
            } else {
                column += 1
                bytes.formIndex(after: &index)
            }
        }
        text += Substring(bytes[copied...])
    }

    // MARK: Bytes

    private func byte(at index: String.Index) -> UInt8? {
        index < bytes.endIndex ? bytes[index] : nil
    }

    /// `position` moved past the spaces and tabs there, its padding taken as spaces.
    private func skippingSpaces(from position: Position) -> Position {
        var index = position.index
        var column = position.column
        while let byte = byte(at: index), byte == 0x20 || byte == 0x09 {
            column += byte == 0x09 ? Self.tabWidth(at: column) : 1
            bytes.formIndex(after: &index)
        }
        return Position(index: index, column: column)
    }

    /// How many of `character` follow from `index` on, and where they end.
    private func run(of character: UInt8, from index: String.Index) -> (length: Int, end: String.Index) {
        var index = index
        var length = 0
        while byte(at: index) == character {
            length += 1
            bytes.formIndex(after: &index)
        }
        return (length, index)
    }

    private static func tabWidth(at column: Int) -> Int { 4 - column % 4 }

    private static func isWhiteSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// White space, `>` or a list marker's bytes: what a line's containers open with.
    private static func isMarkerOrSpace(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x20, 0x09, 0x3E, 0x30...0x39, 0x2E, 0x29, 0x2D, 0x2A, 0x2B: true
        default: false
        }
    }
}
