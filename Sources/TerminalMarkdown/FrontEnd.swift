/// Who reads the REPL's output: what it may draw and how its lines arrive.
///
/// The one rule, from the descriptor and the environment: not a terminal → `pipe`; `INSIDE_EMACS` ending in
/// `,comint` or `,eshell` (M-x shell, eshell) → `colorLines`; `TERM=dumb`, or another Emacs buffer (a compilation
/// buffer) → `plainLines`; anything else, M-x term (`INSIDE_EMACS=…,term:…`, `TERM=eterm-color`) and vterm
/// (`INSIDE_EMACS=vterm`) included → `terminal`.
public enum FrontEnd: Sendable, Equatable {
    /// A full terminal: readline, cursor movement, the live tail redrawn in place.
    case terminal
    /// A line-mode buffer that renders SGR colours (Emacs comint): lines read as they end (LF or CR), output only
    /// ever appended, SGR its only escape sequences.
    case colorLines
    /// A line-mode terminal without colours (`TERM=dumb`): as `colorLines`, without any escape sequence.
    case plainLines
    /// Not a terminal (a pipe or a file): no prompt, each input line is a message, the answer's text as it is.
    case pipe
}
