/// The user's display settings (configuration keys `theme`, `hyperlinks`, `width_mode`, `code_fences`) that
/// override what terminal detection guesses.
public struct DisplaySettings: Sendable, Equatable {
    /// Code colours for a dark or light background, or `auto` from `COLORFGBG`.
    public var theme: Choice<TerminalBackground>
    /// OSC 8 hyperlinks always, never, or `auto` for terminals known to support them.
    public var hyperlinks: Choice<Bool>
    /// How the terminal counts columns of emoji sequences, or `auto` from the terminal's identity.
    public var widthModel: Choice<WidthModel>
    /// Code blocks keep their ``` fences on a terminal.
    public var showsCodeFences: Bool

    /// A setting that is either detected from the terminal or fixed by the user.
    public enum Choice<Value: Sendable & Equatable>: Sendable, Equatable {
        case auto
        case fixed(Value)
    }

    /// Creates settings; the defaults detect everything and hide fences.
    public init(
        theme: Choice<TerminalBackground> = .auto, hyperlinks: Choice<Bool> = .auto,
        widthModel: Choice<WidthModel> = .auto, showsCodeFences: Bool = false
    ) {
        self.theme = theme
        self.hyperlinks = hyperlinks
        self.widthModel = widthModel
        self.showsCodeFences = showsCodeFences
    }

    /// Settings from configuration values (`auto|dark|light`, `auto|always|never`, `auto|codepoint|grapheme`,
    /// `hide|show`); an unknown value counts as `auto` (the configuration validates values when it is written).
    public init(theme: String, hyperlinks: String, widthMode: String, codeFences: String) {
        self.init(
            theme: TerminalBackground(rawValue: theme).map { .fixed($0) } ?? .auto,
            hyperlinks: hyperlinks == "always" ? .fixed(true) : hyperlinks == "never" ? .fixed(false) : .auto,
            widthModel: WidthModel(rawValue: widthMode).map { .fixed($0) } ?? .auto,
            showsCodeFences: codeFences == "show")
    }
}

extension DisplaySettings.Choice {
    /// The fixed value, or `detected` for `auto`.
    func resolved(_ detected: @autoclosure () -> Value) -> Value {
        if case .fixed(let value) = self { return value }
        return detected()
    }
}
