import Foundation
import Library
import Simulator
import TestSupport
import Testing

/// `llmster` (the REPL) on a real pseudo-terminal, in a sandbox, against an in-process simulator.
struct ReplHarness {
    let fixture: SimulatorFixture
    let sandbox: Sandbox
    var extra: [String: String] = [:]

    init(_ options: SimulatorOptions = SimulatorOptions(), environment: [String: String] = [:]) throws {
        fixture = try SimulatorFixture(options)
        sandbox = try Sandbox()
        extra = environment
    }

    var environment: [String: String] { sandbox.environment(server: fixture.url, extra: extra) }

    /// The draft the library keeps for its first conversation (the one a test made), "" when it has none.
    func firstDraft() throws -> String {
        let library = try LibraryStore(path: sandbox.libraryPath)
        let conversation = try #require(try library.conversations().first)
        return try library.conversation(id: conversation.id)?.draft ?? ""
    }

    /// Starts the REPL on a `width`×`height` terminal (with echo off when `echo` is false) and waits for its first prompt.
    /// The terminal answers an OSC 11 background query with `background` (`rgb:ffff/ffff/ffff`) when it is given.
    func start(
        _ arguments: [String] = [], width: Int = 100, height: Int = 40, echo: Bool = true,
        background: String? = nil, graphemeMode: Int? = nil, cursorColumns: [Int] = []
    ) async throws -> Pseudoterminal {
        let terminal = try Pseudoterminal(
            try BuiltProduct.path("llmster"), arguments, environment: environment,
            width: width, height: height, echo: echo, background: background,
            graphemeMode: graphemeMode, cursorColumns: cursorColumns)
        try await terminal.waitFor("› ")
        return terminal
    }

}

extension Pseudoterminal {
    /// Types `line` and Enter, then waits for the next prompt; returns what appeared in between.
    @discardableResult
    func enter(_ line: String) async throws -> String {
        let start = mark
        send(line + "\r")
        return try await waitFor("› ", after: start + line.count)
    }

    /// Types Ctrl-C at the prompt and waits for the fresh prompt below the `^C`. A line typed before that prompt is
    /// drawn could reach the REPL together with the next, as one paste.
    func interruptLine() async throws {
        let before = mark
        send("\u{3}")
        let shown = try await waitFor("^C", after: before)
        let caret = try #require(shown.range(of: "^C"))
        try await waitFor("› ", after: before + shown.distance(from: shown.startIndex, to: caret.upperBound))
    }

    /// Types `command` and Enter and waits for the `[y/N]` question it asks.
    func ask(_ command: String) async throws {
        let start = mark
        send(command + "\r")
        try await waitFor("[y/N] ", after: start)
    }

    /// Pastes `text` as a terminal does: wrapped in bracketed-paste marks only while the program has that mode on (its
    /// last `CSI ? 2004` says so), else as bare keys.
    func paste(_ text: String) {
        let raw = rawOutput
        let on = raw.range(of: "\u{1B}[?2004h", options: .backwards)?.lowerBound
        let off = raw.range(of: "\u{1B}[?2004l", options: .backwards)?.lowerBound
        let marked = on.map { on in off.map { $0 < on } ?? true } ?? false
        send(marked ? "\u{1B}[200~" + text + "\u{1B}[201~" : text)
    }

    /// Waits for the next prompt after `mark`; returns what appeared before it.
    func outputBeforePrompt(after mark: Int) async throws -> String {
        let shown = try await waitFor("› ", after: mark)
        return shown.components(separatedBy: "› ").first ?? shown
    }

    /// Types `line` and Enter and waits for the echo of its last word (which must not occur earlier in it); returns
    /// the mark just after it, where the answer starts. A fixed offset guessed from the mark before could land past
    /// the answer's first words when less than guessed (a spinner, a status line) comes before them.
    func sendLine(_ line: String) async throws -> Int {
        let start = mark
        send(line + "\r")
        return try await waitPast(String(line.split(separator: " ").last ?? ""), after: start)
    }
}

extension ReplHarness {
    /// Runs `llmster ARGUMENTS` to completion within `seconds`, killing it after that so a test cannot hang.
    func runBounded(_ arguments: [String], input: String? = nil, seconds: Double = 60) async throws -> ProcessResult {
        try await ProcessRunner.start(
            try BuiltProduct.path("llmster"), arguments, environment: environment, input: input
        )
        .wait(killingAfter: seconds)
    }
}
