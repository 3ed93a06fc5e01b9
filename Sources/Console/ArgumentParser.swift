import Chat
import TerminalMarkdown

/// Parses the words of a command line or a slash command against a declared set of options.
///
/// One parser serves `llmster SUBCOMMAND …` and the REPL's `/command …`, so both accept the same
/// spellings and report the same usage errors.
public struct ArgumentParser: Sendable {
    /// One accepted option.
    public struct Option: Sendable {
        /// Long names without dashes (the first is canonical), e.g. `["continue"]`.
        public let names: [String]
        /// A one-letter short name, e.g. `c`.
        public let short: Character?
        /// The value's placeholder (`MODEL`); nil for a flag.
        public let value: String?
        /// Whether the value may be left out; an optional value is only taken attached (`--continue=CHAT`).
        public let valueIsOptional: Bool
        /// The values the option accepts, when they form a closed set.
        public let choices: [String]?
        /// Whether it may be given more than once, each value kept (`-f a -f b`); usage lines mark it with `…`.
        public let isRepeatable: Bool
        /// The help line.
        public let help: String

        /// Declares an option: its long names, the first canonical.
        public init(
            _ names: [OptionName], short: Character? = nil, value: String? = nil, optionalValue: Bool = false,
            choices: [String]? = nil, repeatable: Bool = false, help: String
        ) {
            self.names = names.map(\.rawValue)
            self.short = short
            self.value = value
            self.valueIsOptional = optionalValue
            self.choices = choices
            self.isRepeatable = repeatable
            self.help = help
        }

        /// The option as a usage line names it: by its short name when it has one (`-m MODEL`; `-c`, whose
        /// optional value only the long name takes), else by its long name and value, its choices when it has
        /// them (`--sort name|size|format`, `--fresh-context[=empty|recap]`).
        var usage: String {
            let shown = choices?.joined(separator: "|") ?? value
            if let short { return "-\(short)" + (shown.map { valueIsOptional ? "" : " " + $0 } ?? "") }
            return "--" + names[0] + (shown.map { valueIsOptional ? "[=\($0)]" : " " + $0 } ?? "")
        }

        /// The option as `--help` shows it.
        public var synopsis: String {
            var text = (short.map { "-\($0), " } ?? "") + "--" + names[0]
            if let value { text += valueIsOptional ? "[=\(value)]" : " \(value)" }
            return text
        }
    }

    /// The result: option values by canonical name (repeatable options keep every value) and positionals.
    public struct Parsed: Sendable {
        public var values: [String: [String]] = [:]
        public var positionals: [String] = []

        /// Whether the option was given (false for one the command does not declare: helpers shared by commands,
        /// such as `AskCommand.open`, read every option any of them may have).
        public func has(_ name: OptionName) -> Bool { values[name.rawValue] != nil }
        /// The option's last value.
        public func value(_ name: OptionName) -> String? {
            values[name.rawValue]?.last.flatMap { $0.isEmpty ? nil : $0 }
        }
        /// The option's value as a positive whole number, nil when the option is absent.
        public func positiveInteger(_ name: OptionName) throws(UsageError) -> Int? {
            guard let text = value(name) else { return nil }
            guard let number = Int(text), number > 0 else {
                throw UsageError("--\(name.rawValue) must be a positive number, not '\(text)'")
            }
            return number
        }
        /// Every value given for a repeatable option.
        public func all(_ name: OptionName) -> [String] { values[name.rawValue]?.filter { !$0.isEmpty } ?? [] }
    }

    public let options: [Option]

    /// Creates a parser for these options.
    public init(_ options: [Option]) { self.options = options }

    /// Parses `words`; `--` ends options; options and positionals may be mixed.
    public func parse(_ words: [String]) throws(UsageError) -> Parsed {
        var parsed = Parsed()
        var index = 0
        var onlyPositionals = false
        while index < words.count {
            let word = words[index]
            index += 1
            if onlyPositionals || word == "-" || !word.hasPrefix("-") {
                parsed.positionals.append(word)
                continue
            }
            if word == "--" {
                onlyPositionals = true
                continue
            }
            var name: String
            var attached: String?
            let option: Option
            if word.hasPrefix("--") {
                name = String(word.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    attached = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                guard let match = options.first(where: { $0.names.contains(name) }) else {
                    throw UsageError("unknown option --\(name)\(suggestion(for: name))")
                }
                option = match
            } else {
                let letters = Array(word.dropFirst())
                guard let first = letters.first, let match = options.first(where: { $0.short == first }) else {
                    throw UsageError("unknown option \(word)")
                }
                option = match
                if letters.count > 1 {
                    // A short option whose value is optional takes none: `-c=ID` is not the name `=ID`.
                    if option.valueIsOptional {
                        throw UsageError(
                            "-\(first) takes no value; write --\(option.names[0])=\(option.value ?? "VALUE") to give one"
                        )
                    }
                    if option.value != nil {
                        attached = String(letters.dropFirst())
                    } else {
                        // Bundled flags such as `-ab`.
                        for letter in letters.dropFirst() {
                            guard let flag = options.first(where: { $0.short == letter && $0.value == nil }) else {
                                throw UsageError("unknown option -\(letter)")
                            }
                            parsed.values[flag.names[0], default: []].append("")
                        }
                    }
                }
            }
            let key = option.names[0]
            guard option.value != nil else {
                if attached != nil { throw UsageError("--\(key) takes no value") }
                parsed.values[key, default: []].append("")
                continue
            }
            var value = attached
            // As with getopt, an optional value must be attached (`--continue=CHAT`): the next word is the
            // command's own text.
            if value == nil, index < words.count, !option.valueIsOptional {
                value = words[index]
                index += 1
            }
            if value == nil && !option.valueIsOptional {
                throw UsageError("--\(key) needs a value (\(option.value!))")
            }
            if let value, let choices = option.choices, !choices.contains(value) {
                throw UsageError("--\(key) must be one of \(choices.joined(separator: ", ")), not '\(value)'")
            }
            parsed.values[key, default: []].append(value ?? "")
        }
        return parsed
    }

    /// This parser with `others` added, except those whose long or short name it already declares.
    public func including(_ others: [Option]) -> ArgumentParser {
        let names = Set(options.flatMap(\.names))
        let shorts = Set(options.compactMap(\.short))
        return ArgumentParser(
            options
                + others.filter { other in
                    !other.names.contains(where: names.contains) && !(other.short.map(shorts.contains) ?? false)
                })
    }

    /// The usage line's words after the command's name, made from the declared options: each `form` is a way to
    /// call the command, its arguments then its options, and the forms are joined by `|`. An option in brackets may
    /// be left out, options of one `exclusive` group share a bracket (`[-c | --chat CHAT]`), and a repeatable one is
    /// followed by `…`. Without forms the command has one: `arguments` and every option but `--help`.
    public func synopsis(arguments: String, forms: [UsageForm]? = nil, exclusive: [[OptionName]] = []) -> String {
        let forms = forms ?? [UsageForm(arguments, options.map(\.names[0]).filter { $0 != OptionName.help.rawValue })]
        return forms.map { form in
            var words = form.arguments.isEmpty ? [] : [form.arguments]
            words += form.required.compactMap { option(named: $0.rawValue)?.usage }
            var shown: Set<String> = []
            for name in form.optional where !shown.contains(name) {
                let group = exclusive.first { $0.contains { $0.rawValue == name } }?.map(\.rawValue) ?? [name]
                shown.formUnion(group)
                let members = group.compactMap(option(named:))
                guard !members.isEmpty else { continue }
                words.append(
                    "[" + members.map(\.usage).joined(separator: " | ") + "]"
                        + (members.contains(where: \.isRepeatable) ? "…" : ""))
            }
            return words.joined(separator: " ")
        }.joined(separator: " | ")
    }

    private func option(named name: String) -> Option? { options.first { $0.names[0] == name } }

    /// The options' help lines, aligned; with a `width`, each help text wraps under its column at word boundaries.
    public func optionHelp(width: Int?, fit: TextFit) -> String {
        let column = (options.map(\.synopsis.count).max() ?? 0) + 4
        return options.map { option in
            let term = "  " + option.synopsis
            guard let width else { return fit.pad(term, to: column) + option.help }
            return TextLayout.hanging(term, option.help, column: column, width: width, fit: fit)
        }.joined(separator: "\n")
    }

    private func suggestion(for name: String) -> String {
        let all = options.flatMap(\.names)
        guard let best = EditDistance.nearest(to: name, in: all, maximum: 3) else { return "" }
        return " (did you mean --\(best)?)"
    }
}

/// A command line or slash command that does not fit its command's usage.
///
/// Its message is a ``SanitizedMessage``: whatever a server, a file or the user typed that is interpolated into it
/// prints with its control characters made inert.
public struct UsageError: CategorizedError, CustomStringConvertible, Equatable {
    public var category: ErrorCategory { .invalid }

    public let message: String
    /// Whether the command's usage line follows the message. Not for arguments the command understood but refuses
    /// (a context item over its limit, a message the context cannot hold, a branching command in a conversation with
    /// nothing for it yet), where the usage line tells nothing.
    public let showsUsage: Bool
    /// Creates the error.
    public init(_ message: SanitizedMessage, showsUsage: Bool = true) {
        self.message = message.description
        self.showsUsage = showsUsage
    }
    public var description: String { message }
}

/// One way to call a command, for its usage line: the arguments it takes (`FILE`, `ID|URL`, `[PROMPT…]`), the options
/// this way needs, and those it may add.
public struct UsageForm: Sendable {
    let arguments: String
    let required: [OptionName]
    /// The canonical names of the options it may add, in the order the line shows them.
    let optional: [String]

    /// Declares a form.
    public init(_ arguments: String = "", required: [OptionName] = [], _ optional: [OptionName] = []) {
        self.init(arguments, optional.map(\.rawValue), required: required)
    }

    init(_ arguments: String, _ optional: [String], required: [OptionName] = []) {
        self.arguments = arguments
        self.required = required
        self.optional = optional
    }
}
