import Chat
import TerminalMarkdown

extension CommandContext {
    /// The terminal on `fd`, detected from the environment with the configuration's display settings applied.
    public func terminal(fd: Int32) -> TerminalCapabilities {
        var settings = configuration.displaySettings
        if let measuredWidthModel, settings.widthModel == .auto { settings.widthModel = .fixed(measuredWidthModel) }
        return TerminalCapabilities.detect(fd: fd, environment: environment, settings: settings)
    }
}

extension Configuration {
    /// The `theme`, `hyperlinks`, `width_mode` and `code_fences` settings for the Markdown renderer.
    var displaySettings: DisplaySettings {
        DisplaySettings(theme: theme, hyperlinks: hyperlinks, widthMode: widthMode, codeFences: codeFences)
    }
}
