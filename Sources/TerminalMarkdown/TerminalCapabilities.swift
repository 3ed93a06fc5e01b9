import Glibc

/// What the terminal on the other end of a file descriptor can do, as far as the renderer cares.
public struct TerminalCapabilities: Sendable, Equatable {
    /// Whether the descriptor is a terminal at all (false for pipes and files).
    public var isTTY: Bool
    /// `TERM=dumb`, as in an Emacs shell buffer.
    public var isDumb: Bool
    /// The kind of Emacs buffer `INSIDE_EMACS` names; nil outside Emacs.
    public var emacs: EmacsBuffer?
    /// `NO_COLOR` is set to a non-empty value: no colours, layout and text attributes kept.
    public var noColor: Bool
    /// The locale's character set is UTF-8 (box drawing and bullets; ASCII otherwise).
    public var isUTF8: Bool
    /// Columns, from TIOCGWINSZ (80 when unknown).
    public var width: Int
    /// Rows, from TIOCGWINSZ (24 when unknown).
    public var height: Int
    /// The terminal understands OSC 8 hyperlinks.
    public var hyperlinks: Bool
    /// Whether the background is dark or light, which picks the prose and code colours.
    public var background: TerminalBackground
    /// Code blocks show their ``` fences (the `code_fences` setting); otherwise only a dim language label.
    public var showsCodeFences: Bool
    /// How the terminal counts the columns of emoji sequences.
    public var widthModel: WidthModel
    /// Whether the terminal rewraps rows wider than itself when its window narrows (VTE, tmux, kitty, Konsole …;
    /// xterm cuts them instead), so rows already drawn may take more screen rows after a resize.
    public var reflowsOnResize: Bool
    /// How many colours the terminal shows, which picks the palette of the prose and code colours.
    public var colorDepth: ColorDepth

    /// Creates capabilities from explicit values; tests and callers with their own detection use this.
    ///
    /// `insideEmacs` alone stands for an Emacs buffer that is neither comint nor a terminal emulator (`emacs` says which).
    public init(
        isTTY: Bool = true, isDumb: Bool = false, insideEmacs: Bool = false, emacs: EmacsBuffer? = nil,
        noColor: Bool = false, isUTF8: Bool = true, width: Int = 80, height: Int = 24, hyperlinks: Bool = false,
        background: TerminalBackground = .dark, showsCodeFences: Bool = false,
        widthModel: WidthModel = .grapheme, reflowsOnResize: Bool = false, colorDepth: ColorDepth = .base16
    ) {
        self.isTTY = isTTY
        self.isDumb = isDumb
        self.emacs = emacs ?? (insideEmacs ? .other : nil)
        self.noColor = noColor
        self.isUTF8 = isUTF8
        self.width = width
        self.height = height
        self.hyperlinks = hyperlinks
        self.background = background
        self.showsCodeFences = showsCodeFences
        self.widthModel = widthModel
        self.reflowsOnResize = reflowsOnResize
        self.colorDepth = colorDepth
    }

    /// `INSIDE_EMACS` is set (M-x shell, eshell, M-x term, vterm, compilation buffers).
    public var insideEmacs: Bool { emacs != nil }

    /// Who reads this output, by the one rule `llmster(1)` and the README ("Inside Emacs") document.
    public var frontEnd: FrontEnd {
        guard isTTY else { return .pipe }
        if emacs == .comint { return .colorLines }
        if isDumb || emacs == .other { return .plainLines }
        return .terminal
    }

    /// Whether the renderer may move the cursor and redraw: a full terminal (also M-x term and vterm).
    public var allowsCursorMovement: Bool { frontEnd == .terminal }

    /// Whether lines are only ever appended on a terminal: a line-mode front end (comint, `TERM=dumb`).
    public var isLineMode: Bool { frontEnd == .colorLines || frontEnd == .plainLines }

    /// Whether any SGR sequences may be written (colour or attributes).
    public var allowsStyles: Bool { frontEnd == .terminal || frontEnd == .colorLines }

    /// Whether OSC sequences (desktop notifications, the clipboard) may be written: a full terminal outside Emacs,
    /// since comint, term.el and vterm show them as text or drop them.
    public var allowsOperatingSystemCommands: Bool { allowsCursorMovement && !insideEmacs }

    /// Whether colour SGR sequences may be written.
    public var allowsColor: Bool { allowsStyles && !noColor }

    /// Detects the capabilities of `fd` under `environment`, with `settings` overriding the guesses.
    ///
    /// The front end follows `FrontEnd`'s rule. Hyperlinks are never assumed inside Emacs; otherwise only where OSC 8
    /// is known to work: iTerm2, WezTerm and Ghostty (`TERM_PROGRAM`), Windows Terminal (`WT_SESSION`), kitty (`TERM`,
    /// `KITTY_WINDOW_ID`), foot (`TERM`) and VTE ≥ 0.50 (`VTE_VERSION` ≥ 5000); inside tmux only from 3.4 on and when the terminal outside is one of those; never
    /// inside screen. `FORCE_HYPERLINK=1`/`0` overrides the guess, the `hyperlinks` setting overrides both.
    public static func detect(
        fd: Int32, environment: [String: String],
        settings: DisplaySettings = DisplaySettings()
    ) -> TerminalCapabilities {
        let term = environment["TERM"] ?? ""
        let emacs = environment["INSIDE_EMACS"].map(EmacsBuffer.init(insideEmacs:))
        var size = winsize()
        let hasSize = ioctl(fd, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0
        return TerminalCapabilities(
            isTTY: isatty(fd) == 1,
            isDumb: term == "dumb",
            emacs: emacs,
            noColor: !(environment["NO_COLOR"] ?? "").isEmpty,
            isUTF8: localeIsUTF8(environment),
            width: hasSize ? Int(size.ws_col) : 80,
            height: hasSize && size.ws_row > 0 ? Int(size.ws_row) : 24,
            hyperlinks: settings.hyperlinks.resolved(emacs == nil && supportsHyperlinks(environment)),
            background: settings.theme.resolved(TerminalBackground(colorFgBg: environment["COLORFGBG"])),
            showsCodeFences: settings.showsCodeFences,
            widthModel: settings.widthModel.resolved(WidthModel.detect(environment)),
            reflowsOnResize: reflowsOnResize(environment),
            colorDepth: ColorDepth.detect(environment))
    }

    /// Whether the terminal `environment` describes rewraps its rows on a resize: tmux, VTE (GNOME Terminal,
    /// Tilix …), kitty, WezTerm, iTerm2, Ghostty, Konsole, Alacritty, foot and Windows Terminal do; xterm, rxvt and
    /// screen do not, and an unknown terminal is taken not to.
    static func reflowsOnResize(_ environment: [String: String]) -> Bool {
        let term = environment["TERM"] ?? ""
        if environment["STY"] != nil || term.hasPrefix("screen") { return false }
        if environment["TMUX"] != nil || term.hasPrefix("tmux") { return true }
        if [
            "VTE_VERSION", "KITTY_WINDOW_ID", "KONSOLE_VERSION", "ALACRITTY_SOCKET", "ALACRITTY_WINDOW_ID", "WT_SESSION"
        ]
        .contains(where: { environment[$0] != nil }) {
            return true
        }
        if let program = environment["TERM_PROGRAM"], ["iTerm.app", "WezTerm", "ghostty"].contains(program) {
            return true
        }
        return ["xterm-kitty", "xterm-ghostty", "wezterm", "foot", "alacritty"].contains(where: term.hasPrefix)
    }

    static func localeIsUTF8(_ environment: [String: String]) -> Bool {
        let locale =
            [environment["LC_ALL"], environment["LC_CTYPE"], environment["LANG"]]
            .compactMap { $0 }.first { !$0.isEmpty } ?? ""
        let lowered = locale.lowercased()
        return lowered.contains("utf-8") || lowered.contains("utf8")
    }

    static func supportsHyperlinks(_ environment: [String: String]) -> Bool {
        if let forced = environment["FORCE_HYPERLINK"] { return forced != "0" }
        let term = environment["TERM"] ?? ""
        if term.hasPrefix("screen") || environment["STY"] != nil { return false }
        if environment["TMUX"] != nil || term.hasPrefix("tmux") {
            // tmux passes OSC 8 on from 3.4; the variables of the terminal it was started in are still set.
            guard environment["TERM_PROGRAM"] == "tmux",
                let version = environment["TERM_PROGRAM_VERSION"].flatMap(versionNumber), version >= 304
            else { return false }
            return outerTerminalSupportsHyperlinks(environment, term: "")
        }
        return outerTerminalSupportsHyperlinks(environment, term: term)
    }

    private static func outerTerminalSupportsHyperlinks(_ environment: [String: String], term: String) -> Bool {
        if let program = environment["TERM_PROGRAM"], ["iTerm.app", "WezTerm", "ghostty"].contains(program) {
            return true
        }
        if environment["WT_SESSION"] != nil || environment["KITTY_WINDOW_ID"] != nil { return true }
        if ["xterm-kitty", "foot", "xterm-ghostty", "wezterm"].contains(where: term.hasPrefix) { return true }
        if let vte = environment["VTE_VERSION"].flatMap(Int.init), vte >= 5000 { return true }
        return false
    }

    /// `major * 100 + minor` of a version such as `3.4`, `3.3a` or `next-3.5`.
    static func versionNumber(_ text: String) -> Int? {
        let digits = text.drop { !$0.isNumber }
        let parts = digits.split(separator: ".", maxSplits: 2).map { $0.prefix { $0.isNumber } }
        guard let major = parts.first.flatMap({ Int($0) }) else { return nil }
        return major * 100 + (parts.count > 1 ? Int(parts[1]) ?? 0 : 0)
    }
}

/// The brightness of the terminal's background.
public enum TerminalBackground: String, Sendable, CaseIterable {
    case dark, light

    /// The background `COLORFGBG` ("fg;bg" or "fg;default;bg", set by rxvt, Konsole and others) names; dark
    /// when it is unset or unreadable, the common case.
    public init(colorFgBg: String?) {
        let background = colorFgBg?.split(separator: ";").last.flatMap { Int($0) }
        // Of the 16 base colours, white (7) and the bright ones but bright black (8) are light backgrounds.
        self = background.map { $0 == 7 || (9...15).contains($0) } == true ? .light : .dark
    }
}
