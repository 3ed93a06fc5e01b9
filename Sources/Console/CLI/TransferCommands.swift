import Chat
import Foundation
import Glibc
import Library
import Markdown
import SystemSupport
import TerminalMarkdown

/// `llmster export`, `import`, `backup` and `restore`: moving conversations and whole libraries.
enum TransferCommands {
    static let export = Command(
        "export", arguments: "CHAT",
        summary: "Write a conversation to a .llmster file (CHAT: an id, an id prefix or a title).",
        details: """
            Without -o the file is named after the title ("SSE notes" → sse-notes.llmster, numbered if taken) in the
            current directory; -o - writes to standard output. \(outputFileRule)
            """,
        options: [.init([.output], short: "o", value: "FILE", help: "the file to write (- for standard output)")]
    ) { arguments, context in
        guard arguments.positionals.count == 1 else { throw UsageError("name one conversation") }
        let written = try await Transfer.exportConversation(
            arguments.positionals[0], to: arguments.value(.output),
            session: try context.librarySession(), context: context)
        if let written { context.errors.line("Exported to \(written)") }
        return ExitCode.success
    }

    /// How `-o FILE` is written, for the commands' help.
    static let outputFileRule = """
        A regular file or a new path is replaced atomically (complete or not at all); a symlink's target is
        replaced and the link kept; a FIFO, a device or /dev/stdout is written in place, never replaced.
        """

    static let `import` = Command(
        "import",
        forms: [
            UsageForm("FILE", [.yes, .dropContinuation, .folder, .asNew]),
            UsageForm(required: [.fromLmstudio], [.dryRun])
        ],
        exclusive: [[.yes, .dropContinuation]],
        summary: "Add the conversation in a .llmster file to the library, or LM Studio's own chats.",
        details: """
            When the file's server differs from the configured one, llmster asks whether to keep the
            continuation (it works only if that server still holds the context) or drop it (the next
            message starts a fresh server context). --yes keeps it, --drop-continuation drops it.
            --from-lmstudio reads LM Studio's desktop chats (~/.lmstudio/conversations, or on older installs
            ~/.cache/lm-studio/conversations; =DIR names another) without changing them, says how many chats,
            messages and folders there are and which files cannot be read and why, then imports them: each
            message's chosen version on the branch and the others as alternatives, the system prompt, the
            model, images LM Studio kept, sub-directories as folders. A file that cannot be read is left out
            whole; a chat imported before is not imported again. --dry-run only says what it would import.
            """,
        options: [
            .init([.yes], short: "y", help: "keep the continuation without asking"),
            .init([.dropContinuation], help: "drop the server continuation; the next message starts a fresh context"),
            .init([.folder], value: "F", help: "put the conversation in folder F (created when missing)"),
            .init([.asNew], help: "import a copy even if this export was imported before"),
            .init(
                [.fromLmstudio], value: "DIR", optionalValue: true,
                help: "import LM Studio's own chats (default ~/.lmstudio/conversations)"),
            .init([.dryRun], help: "with --from-lmstudio: say what would be imported, import nothing")
        ]
    ) { arguments, context in
        if arguments.has(.fromLmstudio) {
            guard arguments.positionals.isEmpty else {
                throw UsageError("--from-lmstudio takes its directory as --from-lmstudio=DIR, not a FILE")
            }
            try await Transfer.importLMStudioChats(
                from: arguments.value(.fromLmstudio), dryRun: arguments.has(.dryRun),
                session: try context.librarySession(), context: context)
            return ExitCode.success
        }
        if arguments.has(.dryRun) { throw UsageError("--dry-run goes with --from-lmstudio") }
        guard arguments.positionals.count == 1 else { throw UsageError("name one .llmster file") }
        if arguments.has(.yes) && arguments.has(.dropContinuation) {
            throw UsageError("--yes and --drop-continuation contradict each other")
        }
        let policy: Transfer.ContinuationPolicy =
            arguments.has(.dropContinuation) ? .drop : arguments.has(.yes) ? .keep : .ask
        let conversation = try await Transfer.importConversation(
            from: arguments.positionals[0], continuation: policy, folder: arguments.value(.folder),
            asNew: arguments.has(.asNew), session: try context.librarySession(), context: context)
        context.output.line("Imported \"\(UntrustedText.oneLine(conversation.displayTitle))\" as \(conversation.id)")
        return ExitCode.success
    }

    static let backup = Command(
        "backup", exclusive: [[.password, .passwordFile]],
        summary: "Write the whole library (folders, pins, drafts, conversations, attachments) to one file.",
        details: """
            Credentials, the configured server and app-wide settings are not included. With a password
            (--password asks twice on the terminal; --password-file F or $LLMSTER_BACKUP_PASSWORD for
            scripts) the file is encrypted with a key derived by Argon2id. \(outputFileRule)
            """,
        options: [
            .init(
                [.output], short: "o", value: "FILE", help: "the file to write (default llmster-<time>.llmster-backup)"
            ),
            .init([.password], help: "encrypt, asking for the password on the terminal"),
            .init([.passwordFile], value: "F", help: "encrypt with the password in file F")
        ]
    ) { arguments, context in
        guard arguments.positionals.isEmpty else { throw UsageError("backup takes no arguments") }
        guard FileManager.default.fileExists(atPath: context.libraryPath) else {
            throw ArchiveError.io(path: context.libraryPath, reason: "there is no library to back up")
        }
        try await Transfer.backup(
            to: arguments.value(.output), passwordFile: arguments.value(.passwordFile),
            askPassword: arguments.has(.password), session: try context.librarySession(), context: context)
        return ExitCode.success
    }

    static let restore = Command(
        "restore", arguments: "FILE",
        summary: "Replace the library with a backup, after checking it and showing what it holds.",
        details: """
            The backup is read and checked completely first; a wrong password or a damaged file changes
            nothing. The current library is kept beside the new one as library.sqlite3.before-restore-<time>.
            Refused (exit 1, naming the process) while another llmster process has the library open, so a
            reply streaming there is never lost. An encrypted backup's key derivation cost (memory and
            passes, from its header) is shown before the password is asked; one asking for more memory than
            --max-kdf-memory (or the max_kdf_memory setting) is refused before any work.
            """,
        options: [
            .init([.yes], short: "y", help: "replace without asking"),
            .init([.passwordFile], value: "F", help: "the backup's password is in file F"),
            .init([.maxKdfMemory], value: "SIZE", help: "refuse a key derivation asking for more memory (256M, 1G)")
        ]
    ) { arguments, context in
        guard arguments.positionals.count == 1 else { throw UsageError("name one backup file") }
        let ceiling =
            try arguments.value(.maxKdfMemory).map { value in
                guard let bytes = Configuration.byteSize(value) else {
                    throw UsageError("--max-kdf-memory takes a size such as 256M or 1G, not \(value)")
                }
                return bytes
            } ?? context.configuration.maxKeyDerivationMemory
        try Transfer.restore(
            from: arguments.positionals[0], confirmed: arguments.has(.yes),
            passwordFile: arguments.value(.passwordFile), maximumKeyDerivationMemory: ceiling, context: context)
        return ExitCode.success
    }
}

/// Export, import, backup and restore as functions, for the command line and the REPL's slash commands.
public enum Transfer {
    /// What to do with an imported conversation's server continuation when its server is not the configured one.
    public enum ContinuationPolicy: Sendable {
        /// Keep the server URL and response id.
        case keep
        /// Forget them; the next message starts a fresh server context.
        case drop
        /// Ask on the terminal; refuse when there is none.
        case ask
    }

    /// Why a transfer stopped without changing anything: it needs an answer, a flag, or another output.
    public struct Refusal: Error, CustomStringConvertible {
        /// What happened and which flag or answer would let it proceed.
        public let description: String
    }

    /// Writes a conversation to `path`, `nil` for a file named after the title here, or "-" for standard output; returns
    /// the file written as `OutputFile` describes it (a symlink's target, a FIFO or device written in place), nil for "-".
    ///
    /// Goes through `session`'s library connection (`ChatSession.exportConversation`).
    @discardableResult
    public static func exportConversation(
        _ reference: String, to path: String?, session: ChatSession,
        context: CommandContext
    ) async throws -> String? {
        if path == "-", context.output.isTerminal {
            throw Refusal(description: "a .llmster file is binary: redirect standard output, or use -o FILE")
        }
        let output = context.output.fd
        let exported = try await session.exportConversation(reference) { conversation in
            path == "-" ? .descriptor(output) : .file(path ?? freeName(slug(conversation.title), ".llmster"))
        }
        if case .file(let written) = exported.target { return try OutputFile(written).description }
        return nil
    }

    /// Reads LM Studio's desktop chats from `directory` (nil: where LM Studio keeps them), says what they hold and what
    /// cannot be read, then (unless `dryRun`) imports those not imported before.
    public static func importLMStudioChats(
        from directory: String?, dryRun: Bool, session: ChatSession, context: CommandContext
    ) async throws {
        let home = Paths.home(environment: context.environment)
        let (scan, before) = try await session.scanLMStudioChats(directory: directory, home: home)
        let output = context.output
        output.line(
            "LM Studio chats in \(UntrustedText.oneLine(scan.directory)) (read only): \(Figures.count(scan.chats.count, "chat")), "
                + "\(Figures.count(scan.messageCount, "message")), \(Figures.count(scan.folders.count, "folder"))"
                + (scan.folders.isEmpty ? "" : " (\(UntrustedText.oneLine(scan.folders.joined(separator: ", "))))")
                + (before > 0 ? "; \(before) imported before" : "") + ".")
        let missing = scan.chats.flatMap { chat in chat.missingImages.map { (chat.file, $0) } }
        if !missing.isEmpty {
            output.line(
                "\(Figures.count(missing.count, "image")) not found in LM Studio's user-files, left out: "
                    + "\(UntrustedText.oneLine(missing.map { "\($0.1) (\($0.0))" }.joined(separator: ", ")))")
        }
        if !scan.unreadable.isEmpty {
            output.line("Cannot be read, left out whole:")
            for (file, reason) in scan.unreadable { output.line("  \(UntrustedText.oneLine("\(file): \(reason)"))") }
        }
        guard !dryRun else { return }
        let (imported, there) = try await session.importLMStudioChats(scan)
        output.line(
            "Imported \(Figures.count(imported, "chat"))" + (there > 0 ? "; \(there) were imported before." : "."))
    }

    /// Checks a `.llmster` file, settles its continuation by `policy`, and imports it in one transaction.
    public static func importConversation(
        from path: String, continuation policy: ContinuationPolicy, folder: String?, asNew: Bool,
        session: ChatSession, context: CommandContext
    ) async throws -> Conversation {
        let plan = try session.importPlan(forFileAt: path)
        var answer: ImportPlan.Answer? =
            switch policy {
            case .keep: .keep
            case .drop: .drop
            case .ask: nil
            }
        if answer == nil, plan.mustAsk, let question = plan.question {
            let prompt: SanitizedMessage = """
                \(UntrustedText.oneLine(question))
                  k  keep the continuation: \(plan.effect(of: .keep))
                  d  drop it: \(plan.effect(of: .drop))
                Keep or drop? [k/d]\u{20}
                """
            guard let typed = Terminal.ask(prompt) else {
                throw Refusal(
                    description: """
                        \(UntrustedText.oneLine(question)) There is no terminal to ask: pass --yes to keep the continuation or --drop-continuation to drop it
                        """)
            }
            switch typed.lowercased() {
            case "k", "keep": answer = .keep
            case "d", "drop": answer = .drop
            default: throw Refusal(description: "import cancelled (answer k or d)")
            }
        }
        return try await session.importConversation(
            from: path, options: plan.options(answer: answer, folder: folder, asNew: asNew))
    }

    /// Backs the library up to `path` (nil for `llmster-<time>.llmster-backup` here); returns the file written.
    ///
    /// Encrypted when a password comes from `passwordFile`, `LLMSTER_BACKUP_PASSWORD`, or (with `askPassword`) the terminal.
    @discardableResult
    public static func backup(
        to path: String?, passwordFile: String?, askPassword: Bool, session: ChatSession,
        context: CommandContext
    ) async throws -> String {
        let password = try Self.password(file: passwordFile, environment: context.environment, askTwice: askPassword)
        let target = path ?? stamped("llmster-", ".llmster-backup")
        let statistics = try await session.backupLibrary(to: target, password: password)
        context.errors.line(
            "Backed up \(statistics.conversations) conversations (\(password == nil ? "not encrypted" : "encrypted")) to "
                + "\(try OutputFile(target).description)")
        return target
    }

    /// Checks a backup, shows what it holds, asks (unless `confirmed`), and replaces the library.
    /// An encrypted backup's key derivation cost is shown before its password is asked; one asking for more memory
    /// than `maximumKeyDerivationMemory` is refused before anything is derived.
    @discardableResult
    public static func restore(
        from path: String, confirmed: Bool, passwordFile: String?, maximumKeyDerivationMemory: UInt64? = nil,
        context: CommandContext
    ) throws -> Bool {
        try LibraryBackup.checkNotInUse(libraryPath: context.libraryPath)
        var password: [UInt8]?
        let derivation = try LibraryBackup.keyDerivation(of: path)
        if let derivation {
            if let ceiling = maximumKeyDerivationMemory, derivation.memory > ceiling {
                throw ArchiveError.keyDerivationTooCostly(derivation, ceiling: ceiling)
            }
            context.errors.wrappedLine(
                "Deriving this backup's key takes \(derivation.summary) before the password can be checked.")
            password = try Self.password(file: passwordFile, environment: context.environment, askTwice: false)
            if password == nil { password = Terminal.readSecret("Password for \(path): ") }
            guard password != nil else { throw ArchiveError.passwordRequired }
        }
        let prepared = try LibraryBackup.prepareRestore(
            archive: path, password: password, libraryPath: context.libraryPath,
            maximumKeyDerivationMemory: maximumKeyDerivationMemory)
        let statistics = prepared.statistics
        let day = DateFormatter()
        day.locale = Locale(identifier: "en_US_POSIX")
        day.dateFormat = "yyyy-MM-dd"
        let range =
            statistics.oldest.map { day.string(from: $0) + " to " + day.string(from: statistics.newest ?? $0) } ?? "-"
        var table = TextTable(columns: [
            .init("BACKUP", priority: 0), .init(UntrustedText.sanitize(path), minimumWidth: 12, priority: 1)
        ])
        for (label, value) in [
            ("size", byteCount(prepared.archiveSize) + (password == nil ? ", not encrypted" : ", encrypted")),
            ("key cost", derivation?.summary ?? "none (not encrypted)"),
            ("folders", "\(statistics.folders)"), ("conversations", "\(statistics.conversations)"),
            ("messages", "\(statistics.messages)"),
            ("attachments", "\(statistics.attachments) (\(byteCount(statistics.attachmentBytes)))"),
            ("pinned", "\(statistics.pinned)"), ("drafts", "\(statistics.drafts)"), ("dates", range)
        ] { table.append([label, value]) }
        context.errors.send(
            laidOut: table.text(
                width: TextLayout.outputWidth(environment: context.environment, fd: 2),
                fit: context.terminal(fd: 2).textFit))
        if !confirmed {
            guard let answer = Terminal.ask("Replace the library at \(context.libraryPath) with this backup? [y/N] ")
            else {
                prepared.discard()
                throw Refusal(description: "restoring replaces the library: pass --yes to confirm without a terminal")
            }
            guard ["y", "yes"].contains(answer.lowercased()) else {
                prepared.discard()
                context.errors.line("Restore cancelled; the library is unchanged.")
                return false
            }
        }
        let kept: String?
        do { kept = try prepared.commit() } catch {
            // Another process opened the library while the backup was read or the answer awaited.
            prepared.discard()
            throw error
        }
        context.errors.wrappedLine(
            "Restored the library" + (kept.map { "; the previous one is kept as \($0)" } ?? ""))
        return true
    }

    /// The password from `file`, else `LLMSTER_BACKUP_PASSWORD`, else (when `askTwice`) typed twice on the terminal; nil for none.
    static func password(file: String?, environment: [String: String], askTwice: Bool) throws -> [UInt8]? {
        if let file {
            guard var text = FileManager.default.contents(atPath: file).map({ [UInt8]($0) }) else {
                throw ArchiveError.io(path: file, reason: "cannot read the password file")
            }
            if text.last == UInt8(ascii: "\n") { text.removeLast() }
            if text.last == UInt8(ascii: "\r") { text.removeLast() }
            guard !text.isEmpty else { throw ArchiveError.io(path: file, reason: "the password file is empty") }
            return text
        }
        if let value = environment["LLMSTER_BACKUP_PASSWORD"], !value.isEmpty { return Array(value.utf8) }
        guard askTwice else { return nil }
        guard let first = Terminal.readSecret("Backup password: ") else {
            throw Refusal(description: "--password needs a terminal; use --password-file F or LLMSTER_BACKUP_PASSWORD")
        }
        guard !first.isEmpty else { throw Refusal(description: "the password is empty; backup cancelled") }
        guard Terminal.readSecret("Again: ") == first else {
            throw Refusal(description: "the passwords differ; backup cancelled")
        }
        return first
    }

    /// A name for a new file in the current directory: `<prefix><UTC time><suffix>`.
    static func stamped(_ prefix: String, _ suffix: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return freeName(prefix + formatter.string(from: Date()), suffix)
    }

    /// A file-name-safe form of a title: lowercase letters and digits joined by dashes.
    static func slug(_ title: String) -> String {
        let words = title.lowercased().split { !($0.isLetter || $0.isNumber) }.joined(separator: "-")
        let short = String(words.prefix(60))
        return short.isEmpty ? "conversation" : short
    }

    private static func freeName(_ stem: String, _ suffix: String) -> String {
        var name = stem + suffix
        var counter = 2
        while FileManager.default.fileExists(atPath: name) {
            name = "\(stem)-\(counter)\(suffix)"
            counter += 1
        }
        return name
    }

    private static func byteCount(_ bytes: Int) -> String {
        Units.bytes(Int64(bytes))
    }
}

/// Questions on the controlling terminal: standard input and standard error must both be terminals.
enum Terminal {
    /// The answer to `question` (trimmed), or nil when there is no terminal or input ended. The answer is echoed
    /// as typed even where echo was off (the REPL turns it off while a command runs).
    static func ask(_ question: SanitizedMessage) -> String? {
        guard isatty(0) == 1, isatty(2) == 1 else { return nil }
        var saved = termios()
        let restores = tcgetattr(0, &saved) == 0
        var shown = saved
        shown.c_lflag |= tcflag_t(ECHO | ICANON)
        if restores { tcsetattr(0, TCSANOW, &shown) }
        defer { if restores { tcsetattr(0, TCSANOW, &saved) } }
        // Echo is on before the question shows, so an answer typed at once is echoed too.
        StandardStream.error.send(question)
        return readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces)
    }

    /// A line typed with echo off, or nil when there is no terminal.
    static func readSecret(_ prompt: SanitizedMessage) -> [UInt8]? {
        guard isatty(0) == 1, isatty(2) == 1 else { return nil }
        StandardStream.error.send(prompt)
        var saved = termios()
        tcgetattr(0, &saved)
        // Echo off, and a whole line at a time with CR read as its end, whatever state the REPL left the terminal in.
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        quiet.c_lflag |= tcflag_t(ICANON)
        quiet.c_iflag |= tcflag_t(ICRNL)
        tcsetattr(0, TCSANOW, &quiet)
        defer {
            tcsetattr(0, TCSANOW, &saved)
            StandardStream.error.line()
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(0, &byte, 1) == 1, byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r") { bytes.append(byte) }
        return bytes
    }
}
