import Foundation
import Testing

@testable import TerminalMarkdown

/// Every colour of both themes reads on its background: a contrast of at least 4.5:1 (WCAG AA) at 16 colours
/// (xterm's palette), 256 colours and truecolor.
struct ThemeContrastTests {
    typealias RGB = (red: Double, green: Double, blue: Double)

    /// xterm's default 16 colours by SGR code.
    static let xterm: [UInt8: RGB] = [
        30: (0, 0, 0), 31: (205, 0, 0), 32: (0, 205, 0), 33: (205, 205, 0), 34: (0, 0, 238), 35: (205, 0, 205),
        36: (0, 205, 205), 37: (229, 229, 229), 90: (127, 127, 127), 91: (255, 0, 0), 92: (0, 255, 0),
        93: (255, 255, 0), 94: (92, 92, 255), 95: (255, 0, 255), 96: (0, 255, 255), 97: (255, 255, 255)
    ]

    /// The backgrounds each theme must read on: the palette's own black or white with 16 colours; with more,
    /// black and a dark grey, or white and Solarized's cream.
    static func backgrounds(_ background: TerminalBackground, _ depth: ColorDepth) -> [RGB] {
        switch (background, depth) {
        case (.dark, .base16): [(0, 0, 0)]
        case (.light, .base16): [(255, 255, 255)]
        case (.dark, _): [(0, 0, 0), (30, 30, 30)]
        case (.light, _): [(255, 255, 255), (253, 246, 227)]
        }
    }

    static func rgb(_ color: TerminalColor) -> RGB? {
        switch color {
        case .base(let code): return xterm[code]
        case .indexed(let index):
            // xterm's 256 colours: the 6×6×6 cube from 16, the grey ramp from 232.
            guard index >= 16 else { return nil }
            if index >= 232 {
                return (
                    Double(8 + 10 * Int(index - 232)), Double(8 + 10 * Int(index - 232)),
                    Double(8 + 10 * Int(index - 232))
                )
            }
            let levels: [Double] = [0, 95, 135, 175, 215, 255]
            let cube = Int(index) - 16
            return (levels[cube / 36], levels[cube / 6 % 6], levels[cube % 6])
        case .rgb(let red, let green, let blue): return (Double(red), Double(green), Double(blue))
        }
    }

    /// WCAG 2's relative luminance of an sRGB colour.
    static func luminance(_ color: RGB) -> Double {
        func linear(_ channel: Double) -> Double {
            let value = channel / 255
            return value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(color.red) + 0.7152 * linear(color.green) + 0.0722 * linear(color.blue)
    }

    static func contrast(_ first: RGB, _ second: RGB) -> Double {
        let (a, b) = (luminance(first), luminance(second))
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    /// Every style of `theme` with the construct it colours.
    static func styles(of theme: MarkdownTheme) -> [(String, TextStyle)] {
        var styles: [(String, TextStyle)] = theme.headings.enumerated().map { ("heading \($0.offset + 1)", $0.element) }
        styles += [
            ("inline code", theme.inlineCode), ("code fence", theme.codeFence), ("code label", theme.codeLabel),
            ("link", theme.link), ("link detail", theme.linkDetail), ("quote bar", theme.quoteBar),
            ("list marker", theme.listMarker), ("done task", theme.taskDone), ("open task", theme.taskOpen),
            ("rule", theme.rule), ("table border", theme.tableBorder), ("table header", theme.tableHeader),
            ("html", theme.html), ("footnote", theme.footnote), ("key", theme.key),
            ("succeeded", theme.succeeded), ("failed", theme.failed), ("unfinished", theme.unfinished)
        ]
        styles += [Alert.Kind.note, .tip, .important, .warning, .caution].map { ("alert \($0)", theme.alert($0)) }
        styles += CodeHighlighter.Kind.allCases.map { ("code \($0)", theme.code.style(for: $0)) }
        return styles
    }

    @Test(arguments: [TerminalBackground.dark, .light], [ColorDepth.base16, .indexed256, .truecolor])
    func everyColourReachesAAContrastOnItsBackground(background: TerminalBackground, depth: ColorDepth) throws {
        let theme = MarkdownTheme.standard(for: background, depth: depth)
        for (construct, style) in Self.styles(of: theme) {
            guard let color = style.color else { continue }
            switch (depth, color) {
            case (.base16, .base), (.indexed256, .indexed), (.truecolor, .rgb): break
            default: Issue.record("\(construct) is \(color), not a colour of a \(depth) terminal")
            }
            #expect(!style.dim, "\(construct): a faint colour loses its contrast")
            let rgb = try #require(Self.rgb(color), "\(construct)")
            for backdrop in Self.backgrounds(background, depth) {
                let ratio = Self.contrast(rgb, backdrop)
                #expect(ratio >= 4.5, "\(construct) \(color) on \(backdrop): \(ratio)")
            }
        }
    }

    /// The colour that prompted the rule: a warning's title on Solarized light is a dark amber, not yellow.
    @Test func aWarningTitleOnALightTruecolorTerminalIsDarkAmber() {
        let capabilities = TerminalCapabilities(width: 60, background: .light, colorDepth: .truecolor)
        let output = MarkdownRenderer(capabilities: capabilities, mode: .always).render("> [!WARNING]\n> Careful.")
        #expect(output.contains("38;2;135;95;0m"), "\(output.debugDescription)")
    }

    @Test(arguments: [
        (["TERM": "xterm-256color", "COLORTERM": "truecolor"], ColorDepth.truecolor),
        (["TERM": "xterm-direct"], .truecolor),
        (["TERM": "tmux-256color"], .indexed256),
        (["TERM": "xterm"], .base16),
        (["TERM": "xterm-256color", "INSIDE_EMACS": "29.1,comint"], .base16)
    ])
    func theColourDepthFollowsTheEnvironment(environment: [String: String], depth: ColorDepth) {
        #expect(ColorDepth.detect(environment) == depth)
    }
}
