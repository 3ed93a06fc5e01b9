/// The kind of Emacs buffer a program runs in, from `INSIDE_EMACS` (`28.2,comint`, `28.2,term:0.96`, `vterm`).
public enum EmacsBuffer: Sendable, Equatable {
    /// comint (M-x shell and other comint modes) or eshell: a line-mode buffer whose ansi-color renders SGR.
    case comint
    /// A terminal emulator: M-x term or ansi-term (term.el), vterm.
    case terminalEmulator
    /// Anything else (a compilation buffer, an unknown value): a line-mode buffer without colours.
    case other

    /// The kind `value` of `INSIDE_EMACS` names.
    public init(insideEmacs value: String) {
        let kind = value.split(separator: ",").last.map(String.init) ?? ""
        if kind.hasPrefix("term:") || kind == "vterm" {
            self = .terminalEmulator
        } else if kind == "comint" || kind == "eshell" {
            self = .comint
        } else {
            self = .other
        }
    }
}
