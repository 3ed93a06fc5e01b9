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
