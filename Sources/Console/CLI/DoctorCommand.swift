import Chat
import Foundation
import HTTP
import LMStudio
import Markdown
import SystemSupport
import TerminalMarkdown

/// `llmster doctor`: checks the server, the API, authentication and the terminal, each line saying what to do.
enum DoctorCommand {
    /// One finding.
    struct Check {
        let ok: Bool
        let name: String
        let detail: String
        /// A check of a server profile not in use: a failure is said (`warn`) but leaves the exit status alone.
        var advisory = false
    }

    static let command = Command(
        "doctor",
        summary: "Check the server URL, reachability, LM Studio version, authentication, models and terminal.",
        details: """
            Exits 0 when everything works, 3 when LM Studio cannot be reached (or is older than 0.4),
            4 when the token is missing or rejected, 1 for anything else. Server profiles not in use are
            checked too; one that does not answer is a warning, not a failure.
            """,
        options: [.init([.quiet], short: "q", help: "print only problems")]
    ) { arguments, context in
        var (checks, status) = await run(context)
        checks += await otherProfiles(context)
        let width = TextLayout.outputWidth(environment: context.environment)
        let fit = context.terminal(fd: 1).textFit
        for check in checks where !(arguments.has(.quiet) && check.ok) {
            let term = (check.ok ? "ok  " : check.advisory ? "warn" : "FAIL") + "  " + check.name
            let detail = UntrustedText.sanitize(ServerURL.redactingPasswords(in: check.detail))
            context.output.line(
                SanitizedMessage(
                    untrusted: width.map {
                        TextLayout.hanging(term, detail, column: 18, width: $0, maximumColumn: 18, fit: fit)
                    } ?? fit.pad(term, to: 18) + detail))
        }
        return status
    }

    /// One line per `server.NAME` profile other than the server checked: whether LM Studio answers there (its
    /// greeting, with its own token's authentication not checked), within a short connect limit.
    static func otherProfiles(_ context: CommandContext) async -> [Check] {
        var checks: [Check] = []
        for (name, url) in context.configuration.servers.sorted(by: { $0.key < $1.key })
        where !ServerURL.same(url, context.server) {
            let client = LMStudioClient(
                server: url, token: nil, transport: CurlTransport(),
                timeouts: .init(connect: min(context.configuration.connectTimeout, 2), idle: 5),
                userAgent: CommandContext.userAgent)
            switch await Result(catching: { try await client.greeting() }) {
            case .success(let greeting) where greeting.lmstudio:
                checks.append(
                    Check(
                        ok: true, name: name,
                        detail: "profile \(name), \(url): LM Studio answers"
                            + (greeting.version.map { " (\($0))" } ?? "")))
            case .success:
                checks.append(
                    Check(
                        ok: false, name: name,
                        detail:
                            "profile \(name), \(url): something answers, but it does not say it is LM Studio (not in use: the exit status is not affected)",
                        advisory: true))
            case .failure(let error):
                checks.append(
                    Check(
                        ok: false, name: name,
                        detail: "profile \(name) (not in use: the exit status is not affected): "
                            + ((error as? LMStudioError)?.description ?? String(describing: error)), advisory: true))
            }
        }
        return checks
    }

    static func run(_ context: CommandContext) async -> ([Check], Int32) {
        var checks = [
            Check(
                ok: true, name: "server",
                detail: context.server + (context.isDemo ? " (built-in simulator)" : "")
                    + ", named by " + UntrustedText.sanitize(context.serverSource.description))
        ]
        let token: String?
        do { token = try context.token() } catch {
            checks.append(Check(ok: false, name: "token", detail: String(describing: error)))
            return (checks, ExitCode.authentication)
        }
        func client(_ token: String?) -> LMStudioClient {
            LMStudioClient(
                server: context.server, token: token, transport: CurlTransport(),
                timeouts: .init(connect: context.configuration.connectTimeout, idle: 30),
                userAgent: CommandContext.userAgent)
        }
        let started = ContinuousClock.now
        do {
            let greeting = try await client(token).greeting()
            checks.append(Check(ok: true, name: "reachable", detail: "answered in \(milliseconds(since: started)) ms"))
            checks.append(
                Check(
                    ok: greeting.lmstudio, name: "lm studio",
                    detail: greeting.lmstudio
                        ? "the server says it is LM Studio"
                        : "something answers here, but it does not say it is LM Studio: check the port"))
        } catch LMStudioError.tokenMissing, LMStudioError.tokenRejected {
            checks.append(Check(ok: true, name: "reachable", detail: "answered in \(milliseconds(since: started)) ms"))
        } catch let error as LMStudioError {
            switch error {
            case .unreachable, .timedOut, .tls:
                checks.append(Check(ok: false, name: "reachable", detail: App.explanation(of: error, context: context)))
                return (checks, ExitCode.unreachable)
            default:
                checks.append(
                    Check(ok: false, name: "lm studio", detail: "no LM Studio greeting (\(error.description))"))
            }
        } catch {
            checks.append(Check(ok: false, name: "reachable", detail: String(describing: error)))
            return (checks, ExitCode.unreachable)
        }

        // Asking without a token tells whether the server requires one.
        var authRequired = false
        do {
            _ = try await client(nil).models()
        } catch LMStudioError.tokenMissing, LMStudioError.tokenRejected {
            authRequired = true
        } catch LMStudioError.serverTooOld {
            checks.append(Check(ok: false, name: "api", detail: LMStudioError.serverTooOld.description))
            return (checks, ExitCode.unreachable)
        } catch {
            checks.append(Check(ok: false, name: "api", detail: String(describing: error)))
            return (checks, ExitCode.failure)
        }
        checks.append(Check(ok: true, name: "api", detail: "REST API v1 (LM Studio 0.4 or newer)"))

        do {
            let models = try await client(token).models()
            let detail =
                authRequired
                ? "required; the token is accepted"
                : token == nil ? "not required" : "not required (the configured token is accepted)"
            checks.append(Check(ok: true, name: "auth", detail: detail))
            let llms = models.filter(\.canChat).count
            let loaded = models.flatMap(\.loadedInstances).count
            let detailText =
                "\(Figures.count(llms, "LLM")) and \(Figures.count(models.count - llms, "other model")) downloaded, "
                + "\(Figures.count(loaded, "instance")) loaded"
            checks.append(
                Check(
                    ok: llms > 0, name: "models",
                    detail: llms > 0
                        ? detailText : detailText + ": download one in LM Studio or with `llmster download MODEL`"))
            var status = llms > 0 ? ExitCode.success : ExitCode.failure
            let terminal = context.terminal(fd: 1)
            checks.append(
                Check(ok: true, name: "terminal", detail: terminalSummary(terminal, environment: context.environment)))
            if checks.contains(where: { !$0.ok }), status == ExitCode.success { status = ExitCode.failure }
            return (checks, status)
        } catch let error as LMStudioError {
            switch error {
            case .tokenMissing, .tokenRejected, .tokenLacksPermission, .malformedToken:
                checks.append(
                    Check(
                        ok: false, name: "auth",
                        detail: error.description(credentialsFile: context.paths.credentialsFile)))
                return (checks, ExitCode.authentication)
            default:
                checks.append(Check(ok: false, name: "models", detail: error.description))
                return (checks, ExitCode.failure)
            }
        } catch {
            checks.append(Check(ok: false, name: "models", detail: String(describing: error)))
            return (checks, ExitCode.failure)
        }
    }

    private static func milliseconds(since start: ContinuousClock.Instant) -> Int {
        Int((ContinuousClock.now - start).seconds * 1000)
    }

    /// What llmster will do on this terminal, e.g. `xterm-256color, 120 columns, UTF-8, colour, hyperlinks`.
    static func terminalSummary(_ terminal: TerminalCapabilities, environment: [String: String]) -> String {
        guard terminal.isTTY else { return "standard output is not a terminal: plain text, no colour" }
        var parts = [environment["TERM"] ?? "unknown TERM", "\(terminal.width) columns"]
        parts.append(terminal.isUTF8 ? "UTF-8" : "not UTF-8 (ASCII tables)")
        switch terminal.frontEnd {
        case .colorLines: parts.append("line mode (Emacs shell buffer: appended lines, SGR colours)")
        case .plainLines: parts.append("line mode (TERM=dumb or an Emacs buffer: appended lines)")
        case .terminal, .pipe: break
        }
        parts.append(terminal.allowsColor ? "colour" : "no colour")
        if terminal.hyperlinks { parts.append("hyperlinks") }
        return parts.joined(separator: ", ")
    }
}
