import TestSupport
import Testing

@testable import TerminalMarkdown

/// Detection of hyperlink support and the background, and the user's settings that override it.
struct TerminalSettingsTests {
    @Test(arguments: [
        (["TERM_PROGRAM": "tmux", "TERM_PROGRAM_VERSION": "3.4", "TMUX": "/tmp/t", "VTE_VERSION": "7600"], true),
        (["TERM_PROGRAM": "tmux", "TERM_PROGRAM_VERSION": "3.3a", "TMUX": "/tmp/t", "VTE_VERSION": "7600"], false),
        (["TERM_PROGRAM": "tmux", "TERM_PROGRAM_VERSION": "3.5a", "TMUX": "/tmp/t"], false),
        (["TERM": "screen-256color", "VTE_VERSION": "7600"], false),
        (["TERM": "foot"], true), (["KITTY_WINDOW_ID": "1"], true), (["TERM_PROGRAM": "vscode"], false),
        (["KONSOLE_VERSION": "210800"], false), (["TERM": "alacritty"], false)
    ])
    func hyperlinksOnlyWhereTheyAreKnownToWork(environment: [String: String], supported: Bool) {
        #expect(TerminalCapabilities.detect(fd: -1, environment: environment).hyperlinks == supported)
    }

    @Test func theHyperlinksSettingWinsOverDetection() {
        let always = DisplaySettings(theme: "auto", hyperlinks: "always", widthMode: "auto", codeFences: "hide")
        let never = DisplaySettings(theme: "auto", hyperlinks: "never", widthMode: "auto", codeFences: "hide")
        #expect(TerminalCapabilities.detect(fd: -1, environment: ["TERM": "xterm"], settings: always).hyperlinks)
        #expect(!TerminalCapabilities.detect(fd: -1, environment: ["TERM": "xterm-kitty"], settings: never).hyperlinks)
    }

    @Test func theThemeSettingWinsOverColorFgBg() {
        let light = DisplaySettings(theme: "light", hyperlinks: "auto", widthMode: "auto", codeFences: "show")
        let capabilities = TerminalCapabilities.detect(fd: -1, environment: ["COLORFGBG": "15;0"], settings: light)
        #expect(capabilities.background == .light)
        #expect(capabilities.showsCodeFences)
        #expect(TerminalCapabilities.detect(fd: -1, environment: ["COLORFGBG": "0;15"]).background == .light)
    }

    @Test(arguments: [40, 80, 120])
    func linksShowTheirURLOnlyWithoutHyperlinks(width: Int) {
        let text =
            "Read [the guide](https://example.com/guide/intro) or [mail us](mailto:help@example.com) "
            + "but not [this](file:///etc/passwd) or [that](ftp://example.com/x)."
        for hyperlinks in [true, false] {
            let capabilities = TerminalCapabilities(width: width, hyperlinks: hyperlinks)
            let output = MarkdownRenderer(capabilities: capabilities, mode: .always).render(text)
            assertGolden(
                output, named: "hyperlinks.\(hyperlinks ? "on" : "off")-\(width)", in: snapshotDirectory(for: #filePath)
            )
            if hyperlinks {
                #expect(output.contains("\u{1B}]8;;https://example.com/guide/intro"), "the text links to the URL")
            } else {
                #expect(
                    output.contains("https://example.com/guide/intro") && !output.contains("\u{1B}]8;;"),
                    "the URL is shown, no link")
            }
            #expect(!output.contains("\u{1B}]8;;file:") && !output.contains("\u{1B}]8;;ftp:"))
        }
    }
}
