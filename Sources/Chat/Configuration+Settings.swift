import Foundation

extension Configuration {
    /// One plain key of the file: what it means, how its value reads and is checked, and which property holds it —
    /// the one declaration that `keys`, `value(forKey:)` and `setValue(_:forKey:)` read.
    struct Setting: Sendable {
        let key: String
        let meaning: String
        /// The values a number takes; nil for the other kinds.
        let range: NumberRange?
        /// The value as the file spells it; nil when unset.
        let read: @Sendable (Configuration) -> String?
        /// Sets it from the file's spelling (trimmed, free of control characters); throws naming what it expects.
        let write: @Sendable (inout Configuration, String) throws -> Void

        /// A text that is always set; `check` refuses a value the key cannot take.
        static func text(
            _ key: String, _ meaning: String, _ path: WritableKeyPath<Configuration, String> & Sendable,
            check: @escaping @Sendable (String) throws -> Void = { _ in }
        ) -> Setting {
            Setting(key: key, meaning: meaning, range: nil, read: { $0[keyPath: path] }) { configuration, value in
                try check(value)
                configuration[keyPath: path] = value
            }
        }

        /// A text an empty value unsets.
        static func optionalText(
            _ key: String, _ meaning: String, _ path: WritableKeyPath<Configuration, String?> & Sendable
        ) -> Setting {
            Setting(key: key, meaning: meaning, range: nil, read: { $0[keyPath: path] }) { configuration, value in
                configuration[keyPath: path] = value.isEmpty ? nil : value
            }
        }

        /// `true` or `false`, in any case.
        static func flag(_ key: String, _ meaning: String, _ path: WritableKeyPath<Configuration, Bool> & Sendable)
            -> Setting
        {
            Setting(key: key, meaning: meaning, range: nil, read: { String($0[keyPath: path]) }) {
                configuration, value in
                guard let flag = Bool(value.lowercased()) else {
                    throw ConfigurationError.invalidValue(key: key, value: value, expected: "true or false")
                }
                configuration[keyPath: path] = flag
            }
        }

        /// One of `choices`.
        static func choice(
            _ key: String, _ meaning: String, _ path: WritableKeyPath<Configuration, String> & Sendable,
            _ choices: [String]
        ) -> Setting {
            text(key, meaning, path) { value in
                guard choices.contains(value) else {
                    let expected = choices.dropLast().joined(separator: ", ") + " or " + choices[choices.count - 1]
                    throw ConfigurationError.invalidValue(key: key, value: value, expected: expected)
                }
            }
        }

        /// A number in `range`.
        static func number<Number: LosslessStringConvertible & Sendable>(
            _ key: String, _ meaning: String, _ path: WritableKeyPath<Configuration, Number> & Sendable,
            _ range: NumberRange
        ) -> Setting {
            Setting(key: key, meaning: meaning, range: range, read: { String($0[keyPath: path]) }) {
                configuration, value in
                configuration[keyPath: path] = try parse(value, key: key, range: range)
            }
        }

        /// A number in `range`, or (empty) unset.
        static func optionalNumber<Number: LosslessStringConvertible & Sendable>(
            _ key: String, _ meaning: String, _ path: WritableKeyPath<Configuration, Number?> & Sendable,
            _ range: NumberRange
        ) -> Setting {
            Setting(key: key, meaning: meaning, range: range, read: { $0[keyPath: path].map { String($0) } }) {
                configuration, value in
                configuration[keyPath: path] = value.isEmpty ? nil : try parse(value, key: key, range: range)
            }
        }

        /// A size such as `512K` (``Configuration/byteSize(_:)``) from 1 byte to 2 GiB.
        static func size(
            _ key: String, _ meaning: String, _ path: WritableKeyPath<Configuration, Int> & Sendable, example: String
        ) -> Setting {
            Setting(key: key, meaning: meaning, range: nil, read: { String($0[keyPath: path]) }) {
                configuration, value in
                guard let bytes = Configuration.byteSize(value), bytes > 0, bytes <= UInt64(Int32.max) else {
                    throw ConfigurationError.invalidValue(key: key, value: value, expected: "a size such as \(example)")
                }
                configuration[keyPath: path] = Int(bytes)
            }
        }

        private static func parse<Number: LosslessStringConvertible>(_ value: String, key: String, range: NumberRange)
            throws -> Number
        {
            guard let parsed = Number(value), let magnitude = Double(value), range.contains(magnitude) else {
                throw ConfigurationError.invalidValue(key: key, value: value, expected: range.description)
            }
            return parsed
        }
    }

    /// Refuses `value` for `key` (`server` or a `server.NAME` profile) unless it is an http:// or https:// URL whose
    /// port, if given, is 1 to 65535.
    static func checkServerURL(_ value: String, key: String) throws {
        guard value.hasPrefix("http://") || value.hasPrefix("https://") else {
            throw ConfigurationError.invalidValue(key: key, value: value, expected: "an http:// or https:// URL")
        }
        guard ServerURL.hasValidPort(value) else {
            throw ConfigurationError.invalidValue(
                key: key, value: value, expected: "a port from 1 to 65535 after the host")
        }
    }

    /// Every plain key of the file, in the order the file and `config/get` list them.
    static let settings: [Setting] = [
        .text("server", "LM Studio base URL", \.server) { value in try checkServerURL(value, key: "server") },
        .optionalText("default_model", "model for new conversations", \.defaultModel),
        .optionalText(
            "summarizer_model", "model that writes conversation titles (never unloaded by the load policy)",
            \.summarizerModel),
        .flag("keep_previous_models", "true: keep previous chat models loaded when switching", \.keepPreviousModels),
        .number(
            "display_interval_ms", "display refresh interval while streaming", \.displayIntervalMilliseconds,
            displayIntervalRange),
        .optionalNumber(
            "context_length", "context length used when llmster loads a model", \.contextLength,
            .wholeNumbers(1...Double(Int32.max))),
        .number(
            "context_warn_percent",
            "how full a message may make the context before llmster offers a larger one (percent)",
            \.contextWarnPercent, .wholeNumbers(50...100)),
        .choice("markdown", "auto | always | never", \.markdown, ["auto", "always", "never"]),
        .choice(
            "theme", "prose and code colours: auto (from COLORFGBG, else the REPL asks the terminal) | dark | light",
            \.theme,
            ["auto", "dark", "light"]),
        .choice(
            "hyperlinks", "OSC 8 links: auto (known terminals) | always | never", \.hyperlinks,
            ["auto", "always", "never"]),
        .choice(
            "width_mode", "emoji widths: auto | codepoint (xterm, VTE) | grapheme (kitty, WezTerm)", \.widthMode,
            ["auto", "codepoint", "grapheme"]),
        .choice("code_fences", "hide (a dim language label) | show", \.codeFences, ["hide", "show"]),
        .number(
            "reasoning_tail_lines", "lines of the live reasoning tail", \.reasoningTailLines, .wholeNumbers(0...100)),
        .optionalNumber(
            "notify_after_seconds", "notify when a longer reply finishes unfocused (empty: off)", \.notifyAfterSeconds,
            .seconds(0...86_400)),
        .number(
            "connect_timeout", "seconds to wait for a connection", \.connectTimeout, .seconds(above: 0, atMost: 600)),
        .number("idle_timeout", "seconds a stream may stay silent", \.idleTimeout, .seconds(1...86_400)),
        .number(
            "command_timeout", "seconds a /run or rpc context command may run before it is stopped", \.commandTimeout,
            .seconds(1...86_400)),
        .text("voice_language", "language of voice recognition (a pocketsphinx model, e.g. en-us)", \.voiceLanguage) {
            value in
            guard !value.isEmpty, !value.contains("/") else {
                throw ConfigurationError.invalidValue(
                    key: "voice_language", value: value, expected: "a language such as en-us")
            }
        },
        .number(
            "voice_silence_seconds", "seconds of silence that send a spoken turn", \.voiceSilenceSeconds,
            .seconds(above: 0, atMost: 60)),
        .optionalText(
            "speak_command", "shell command reading answers aloud from standard input (default espeak-ng)",
            \.speakCommand),
        Setting(
            key: "max_kdf_memory",
            meaning: "most memory a backup's key derivation may ask for, e.g. 256M (empty: 1 GiB, libsodium's largest)",
            range: nil, read: { $0.maxKeyDerivationMemory.map(String.init) }
        ) { configuration, value in
            guard !value.isEmpty else {
                configuration.maxKeyDerivationMemory = nil
                return
            }
            guard let bytes = Configuration.byteSize(value) else {
                throw ConfigurationError.invalidValue(
                    key: "max_kdf_memory", value: value, expected: "a size such as 268435456, 256M or 1G")
            }
            configuration.maxKeyDerivationMemory = bytes
        },
        .size(
            "context_item_limit", "largest file, page or command output sent as context, e.g. 512K", \.contextItemLimit,
            example: "524288, 512K or 2M"),
        .size(
            "context_message_limit", "largest sum of context items one message carries, e.g. 2M", \.contextMessageLimit,
            example: "524288, 512K or 2M")
    ]

    /// The plain setting named `key`, if it is one.
    static func setting(_ key: String) -> Setting? { settingsByKey[key] }

    private static let settingsByKey = Dictionary(uniqueKeysWithValues: settings.map { ($0.key, $0) })
}
