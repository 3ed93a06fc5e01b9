import Foundation
import Testing

@testable import TerminalMarkdown

/// The one rule that picks the front end, from a real terminal descriptor and the environment.
struct FrontEndTests {
    /// The capabilities `detect` sees on a fresh pseudo-terminal under `environment`.
    private func detected(_ environment: [String: String]) throws -> TerminalCapabilities {
        // /dev/ptmx with the Linux ioctls: TIOCSPTLCK (0x40045431) unlocks the slave, TIOCGPTN (0x80045430) names it.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(master >= 0)
        defer { close(master) }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        try #require(ioctl(master, 0x4004_5431, &unlock) == 0 && ioctl(master, 0x8004_5430, &number) == 0)
        let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        try #require(slave >= 0)
        defer { close(slave) }
        return TerminalCapabilities.detect(fd: slave, environment: environment)
    }

    @Test(arguments: [
        (["TERM": "xterm-256color"], FrontEnd.terminal),
        (["TERM": "dumb", "INSIDE_EMACS": "28.2,comint"], .colorLines),
        (["TERM": "dumb-emacs-ansi", "INSIDE_EMACS": "30.1,comint"], .colorLines),
        (["TERM": "xterm-256color", "INSIDE_EMACS": "28.2,eshell"], .colorLines),
        (["TERM": "dumb"], .plainLines),
        (["TERM": "dumb", "INSIDE_EMACS": "28.2,compile"], .plainLines),
        (["TERM": "eterm-color", "INSIDE_EMACS": "28.2,term:0.96"], .terminal),
        (["TERM": "xterm-256color", "INSIDE_EMACS": "vterm"], .terminal)
    ])
    func theFrontEndFollowsTermAndInsideEmacs(environment: [String: String], expected: FrontEnd) throws {
        let capabilities = try detected(environment.merging(["LANG": "C.UTF-8"]) { $1 })
        #expect(capabilities.frontEnd == expected)
        #expect(capabilities.allowsCursorMovement == (expected == .terminal))
        #expect(capabilities.isLineMode == (expected == .colorLines || expected == .plainLines))
        #expect(capabilities.allowsColor == (expected != .plainLines))
    }

    @Test func hyperlinksAndOSCAreNeverAssumedInsideEmacs() throws {
        let outside = try detected(["TERM": "xterm-kitty"])
        #expect(outside.hyperlinks && outside.allowsOperatingSystemCommands)
        let term = try detected(["TERM": "xterm-kitty", "INSIDE_EMACS": "28.2,term:0.96"])
        #expect(!term.hyperlinks && !term.allowsOperatingSystemCommands && term.allowsCursorMovement)
    }

    @Test func notATerminalIsThePipeWhateverTheEnvironment() {
        let capabilities = TerminalCapabilities.detect(
            fd: -1, environment: ["TERM": "dumb", "INSIDE_EMACS": "28.2,comint"])
        #expect(capabilities.frontEnd == .pipe && !capabilities.isLineMode)
    }
}
