import Foundation
import SystemSupport

/// App-wide settings read from `Paths.configFile` (`$XDG_CONFIG_HOME/llmster/config`): one `key = value` per line, `#` comments.
///
/// Never holds credentials (those live in the credentials file) and never travels in exports or backups.
public struct Configuration: Sendable, Equatable {
    /// The LM Studio server's base URL.
    public var server = Configuration.defaultServer
    /// LM Studio's own default address: what `server` is when nothing names another one.
    public static let defaultServer = "http://localhost:1234"
    /// Named server profiles (`server.NAME = URL` lines), e.g. a desktop, a GPU rig and a laptop.
    public var servers: [String: String] = [:]
    /// The profile `server` was chosen by (``selectServer(_:)``), or whose URL it is; nil for another URL.
    public var serverProfile: String? {
        chosenProfile ?? servers.sorted { $0.key < $1.key }.first { ServerURL.same($0.value, server) }?.key
    }
    private var chosenProfile: String?
    /// Whether the server was chosen for this run (`--server`, `LLMSTER_SERVER`, `/server`, rpc `server`) rather than
    /// taken from the file: a conversation held on another profile is then not followed there.
    public private(set) var serverIsChosen = false
    /// The model a new conversation uses when none is chosen.
    public var defaultModel: String?
    /// A model that writes short conversation titles; the load policy never unloads it.
    public var summarizerModel: String?
    /// Keep previous chat models loaded when choosing another model.
    public var keepPreviousModels = false
    /// How often the display is refreshed while a reply streams, in milliseconds.
    public var displayIntervalMilliseconds = 50
    /// Context length used when llmster loads a model (nil: the server's default).
    public var contextLength: Int?
    /// `context_warn_percent`: how full (in percent of the instance's context) a turn may make the context before
    /// llmster offers a larger context, a fresh one with a recap, or sending anyway.
    public var contextWarnPercent = 90
    /// `auto`, `always` or `never`.
    public var markdown = "auto"
    /// Code colours: `auto` (from `COLORFGBG`), `dark` or `light`.
    public var theme = "auto"
    /// OSC 8 hyperlinks: `auto` (known terminals), `always` or `never`.
    public var hyperlinks = "auto"
    /// Emoji widths: `auto` (from the terminal), `codepoint` or `grapheme`.
    public var widthMode = "auto"
    /// Code block fences on a terminal: `hide` (a dim language label) or `show`.
    public var codeFences = "hide"
    /// Lines of the live reasoning tail.
    public var reasoningTailLines = 3
    /// Notify when a reply that took longer than this many seconds finishes (nil: never).
    public var notifyAfterSeconds: Double?
    /// Seconds to wait for a connection.
    public var connectTimeout = 5.0
    /// Seconds a stream may stay silent before it is treated as stalled.
    public var idleTimeout = 300.0
    /// Seconds a context command (`/run`, rpc `command` items) may run before its process group is killed.
    public var commandTimeout = 60.0
    /// The language voice conversations are recognised in (a pocketsphinx model name such as `en-us`).
    public var voiceLanguage = "en-us"
    /// Seconds of silence that end a spoken turn.
    public var voiceSilenceSeconds = 1.6
    /// A shell command that reads text from standard input aloud (default: espeak-ng).
    public var speakCommand: String?
    /// The most memory (bytes) a backup's key derivation may ask for before `restore` refuses it (nil: libsodium's
    /// largest limits, 1 GiB).
    public var maxKeyDerivationMemory: UInt64?
    /// The largest context item (a file, page or command output), in bytes.
    public var contextItemLimit = ContextLimits.standard.item
    /// The largest sum of context items one message may carry, in bytes.
    public var contextMessageLimit = ContextLimits.standard.message
    /// Server integrations a conversation may enable, by name (`integration.NAME = …` lines).
    public var integrations: [String: IntegrationSetting] = [:]
    /// Named system prompts with optional model and settings (`preset.NAME.system = …` lines).
    public var presets: [String: Preset] = [:]
    /// Short names for model keys (`alias.NAME = MODEL-KEY` lines), accepted wherever a model key is.
    public var aliases: [String: String] = [:]
    /// The credentials file holding the integrations' secret headers (`Paths.credentialsFile`); nil: no secret headers.
    ///
    /// Not a key of the file: whoever loads the configuration sets it from the `Paths` in effect.
    public var credentialsFile: String?

    /// Creates the defaults.
    public init() {}

    /// Bytes from `268435456`, `512K`, `256M` or `1G` (binary units; `KiB`, `MiB`, `GiB` too); nil for anything else.
    public static func byteSize(_ text: String) -> UInt64? {
        let units: [(String, UInt64)] = [
            ("KIB", 1 << 10), ("MIB", 1 << 20), ("GIB", 1 << 30), ("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30),
            ("", 1)
        ]
        let upper = text.uppercased()
        guard let (suffix, scale) = units.first(where: { upper.hasSuffix($0.0) }),
            let number = UInt64(upper.dropLast(suffix.count))
        else { return nil }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: scale)
        return overflow ? nil : bytes
    }

    /// Every key the file and `config/get|set` accept, with a one-line meaning (`settings`).
    public static let keys: [(key: String, meaning: String)] = settings.map { ($0.key, $0.meaning) }

    /// How often, in milliseconds, streamed text may be shown: `display_interval_ms`, and rpc's `coalesceMilliseconds`.
    public static let displayIntervalRange = NumberRange.wholeNumbers(0...10_000)

    /// The model key `reference` stands for: the key of the `alias.NAME` it names, else `reference` itself (a key
    /// or an instance id).
    public func modelKey(for reference: String) -> String {
        aliases[reference] ?? reference
    }

    /// `default_model` with its alias resolved.
    public var defaultModelKey: String? { defaultModel.map(modelKey(for:)) }

    /// `summarizer_model` with its alias resolved.
    public var summarizerModelKey: String? { summarizerModel.map(modelKey(for:)) }

    /// `alias.NAME` → NAME (ASCII letters, digits, `-` and `_`).
    static func aliasKey(_ key: String) -> String? {
        guard key.hasPrefix("alias.") else { return nil }
        let name = key.dropFirst("alias.".count)
        return isIntegrationName(name) ? String(name) : nil
    }

    /// `preset.NAME.FIELD` → (NAME, FIELD) when FIELD is `system`, `model`, `template` or a conversation setting.
    private static func presetKey(_ key: String) -> (name: String, field: String)? {
        guard key.hasPrefix("preset."), let dot = key.lastIndex(of: "."), dot > key.index(key.startIndex, offsetBy: 6)
        else { return nil }
        let name = key[key.index(key.startIndex, offsetBy: 7)..<dot]
        let field = String(key[key.index(after: dot)...])
        guard isIntegrationName(name),
            ["system", "model", "template"].contains(field) || ConversationSetting(rawValue: field) != nil
        else { return nil }
        return (String(name), field)
    }

    /// The value of `key` as the file spells it, or nil when unset; throws for an unknown key.
    public func value(forKey key: String) throws -> String? {
        if let setting = Self.setting(key) { return setting.read(self) }
        if let name = Self.serverProfileKey(key) { return servers[name] }
        if let name = Self.aliasKey(key) { return aliases[name] }
        if let (name, field) = Self.presetKey(key) {
            guard let preset = presets[name] else { return nil }
            switch field {
            case "system": return preset.systemPrompt
            case "model": return preset.model
            case "template": return preset.template
            default: return preset.settings[field]
            }
        }
        guard let (name, field) = Self.integrationKey(key) else { throw ConfigurationError.unknownKey(key, line: nil) }
        guard let integration = integrations[name] else { return nil }
        return field == nil ? integration.target : integration.allowedTools?.joined(separator: ", ")
    }

    /// `server.NAME` → NAME (ASCII letters, digits, `-` and `_`).
    static func serverProfileKey(_ key: String) -> String? {
        guard key.hasPrefix("server.") else { return nil }
        let name = key.dropFirst("server.".count)
        guard !name.isEmpty,
            name.unicodeScalars.allSatisfy({
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_")
            })
        else {
            return nil
        }
        return String(name)
    }

    /// Makes `reference` the server in effect: the name of a `server.NAME` profile, or an http(s) URL; `explicitly`
    /// (the default) marks it chosen for this run (``serverIsChosen``).
    public mutating func selectServer(_ reference: String, explicitly: Bool = true) throws {
        if let url = servers[reference] {
            server = url
            chosenProfile = reference
            serverIsChosen = explicitly
            return
        }
        guard reference.contains("://") || servers.isEmpty else {
            throw ConfigurationError.invalidValue(
                key: "server", value: reference,
                expected: "an http:// or https:// URL or a profile (" + servers.keys.sorted().joined(separator: ", ")
                    + ")")
        }
        try setValue(reference, forKey: "server")
        chosenProfile = nil
        serverIsChosen = explicitly
    }

    /// `integration.NAME` → (NAME, nil); `integration.NAME.allowed_tools` → (NAME, "allowed_tools").
    private static func integrationKey(_ key: String) -> (name: String, field: String?)? {
        guard key.hasPrefix("integration.") else { return nil }
        let rest = key.dropFirst("integration.".count)
        if rest.hasSuffix(".allowed_tools") {
            let name = String(rest.dropLast(".allowed_tools".count))
            return isIntegrationName(name) ? (name, "allowed_tools") : nil
        }
        return isIntegrationName(rest) ? (String(rest), nil) : nil
    }

    /// Whether `name` may follow `integration.`: ASCII letters, digits, `-` and `_`.
    private static func isIntegrationName(_ name: some StringProtocol) -> Bool {
        !name.isEmpty
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
            }
    }

    /// Whether `text` holds a character that could end, rewrite or reorder a line of the file: one of `UnsafeScalars`.
    static func containsControl(_ text: String) -> Bool { UnsafeScalars.any(in: text) }

    /// Sets `key` from its textual form; an empty value clears an optional setting.
    ///
    /// A key or value holding a control character (see `containsControl`) is refused, so no value can add
    /// lines to the file.
    public mutating func setValue(_ raw: String, forKey key: String) throws {
        guard !Self.containsControl(key) else { throw ConfigurationError.unknownKey(key, line: nil) }
        let value = raw.trimmingCharacters(in: .whitespaces)
        guard !Self.containsControl(value) else { throw ConfigurationError.controlCharacter(key: key) }
        if let setting = Self.setting(key) { return try setting.write(&self, value) }
        if let name = Self.serverProfileKey(key) {
            guard !value.isEmpty else {
                servers[name] = nil
                return
            }
            try Self.checkServerURL(value, key: key)
            servers[name] = value
            return
        }
        if let name = Self.aliasKey(key) {
            guard !value.isEmpty else {
                aliases[name] = nil
                return
            }
            guard !value.contains(where: \.isWhitespace) else {
                throw ConfigurationError.invalidValue(key: key, value: value, expected: "a model key (no spaces)")
            }
            aliases[name] = value
            return
        }
        if let (name, field) = Self.presetKey(key) {
            var preset = presets[name] ?? Preset(name: name)
            let given = value.isEmpty ? nil : value
            switch field {
            case "system": preset.systemPrompt = given?.replacingOccurrences(of: "\\n", with: "\n")
            case "model": preset.model = given
            case "template":
                let template = given?.replacingOccurrences(of: "\\n", with: "\n")
                if let unknown = template.map(Preset.unknownSlots)?.first {
                    throw ConfigurationError.invalidValue(
                        key: key, value: value,
                        expected: "a template whose slots are {{input}} and {{stdin}}; {{\(unknown)}} is no slot")
                }
                preset.template = template
            default: preset.settings[field] = given
            }
            presets[name] = preset.isEmpty ? nil : preset
            return
        }
        guard let (name, field) = Self.integrationKey(key) else { throw ConfigurationError.unknownKey(key, line: nil) }
        if field == nil {
            guard !value.isEmpty else {
                integrations[name] = nil
                return
            }
            integrations[name] = IntegrationSetting(
                name: name, target: value, allowedTools: integrations[name]?.allowedTools)
        } else {
            guard var integration = integrations[name] else {
                throw ConfigurationError.invalidValue(
                    key: key, value: value, expected: "a line `integration.\(name) = …` before it")
            }
            let tools = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                !$0.isEmpty
            }
            integration.allowedTools = tools.isEmpty ? nil : tools
            integrations[name] = integration
        }
    }

    /// Parses the file's text; a leading byte order mark and CRLF line ends (as Windows editors save) are accepted.
    public init(parsing text: String) throws {
        self.init()
        let body = text.unicodeScalars.first == "\u{FEFF}" ? String(text.unicodeScalars.dropFirst()) : text
        // "\r\n" is one Character, so it is named beside "\n"; a lone carriage return stays a control character.
        let lines = body.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (index, rawLine) in lines.enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else { throw ConfigurationError.malformedLine(index + 1) }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            do { try setValue(value, forKey: key) } catch ConfigurationError.unknownKey(let key, _) {
                throw ConfigurationError.unknownKey(key, line: index + 1)
            }
        }
    }

    /// The file's text for these settings (unset optional keys are left out).
    public var fileText: String {
        (["# llmster configuration — see `man llmster`, section CONFIGURATION."]
            + entries.map { "\($0.key) = \($0.value)" })
            .joined(separator: "\n") + "\n"
    }

    /// The `key = value` lines of the file, in order.
    private var entries: [(key: String, value: String)] {
        var entries: [(key: String, value: String)] = []
        for (key, _) in Self.keys {
            if let value = try? value(forKey: key) { entries.append((key, value)) }
        }
        for (name, url) in servers.sorted(by: { $0.key < $1.key }) { entries.append(("server.\(name)", url)) }
        for (name, key) in aliases.sorted(by: { $0.key < $1.key }) { entries.append(("alias.\(name)", key)) }
        for integration in integrations.values.sorted(by: { $0.name < $1.name }) {
            entries.append(("integration.\(integration.name)", integration.target))
            if let tools = integration.allowedTools {
                entries.append(("integration.\(integration.name).allowed_tools", tools.joined(separator: ", ")))
            }
        }
        for preset in presets.values.sorted(by: { $0.name < $1.name }) {
            if let system = preset.systemPrompt {
                entries.append(("preset.\(preset.name).system", system.replacingOccurrences(of: "\n", with: "\\n")))
            }
            if let model = preset.model { entries.append(("preset.\(preset.name).model", model)) }
            if let template = preset.template {
                entries.append(("preset.\(preset.name).template", template.replacingOccurrences(of: "\n", with: "\\n")))
            }
            for key in preset.settings.keys.sorted() {
                entries.append(("preset.\(preset.name).\(key)", preset.settings[key]!))
            }
        }
        return entries
    }

    /// The largest configuration file read.
    static let largestFile = 1 << 20

    /// Reads the file at `path`; a missing file gives the defaults unless `mustExist` (a path the user named).
    ///
    /// Anything but a regular file (a directory, a device such as `/dev/zero`, a FIFO, a socket) is refused: the file
    /// is opened without waiting (a FIFO with no writer would block) and its type checked before a byte is read.
    public static func load(path: String, mustExist: Bool = false) throws -> Configuration {
        // Read as every file llmster takes whole is: a FIFO, device or directory is refused at once, never waited on.
        let read: [UInt8]?
        do throws(RegularFileError) {
            read = try RegularFile.read(path, limit: Self.largestFile)
        } catch .notFound {
            guard !mustExist else { throw ConfigurationError.notAFile(path, reason: "does not exist") }
            return Configuration()
        } catch .symlinkLoop {
            throw ConfigurationError.notAFile(path, reason: "is a symlink loop")
        } catch .notRegular(_, let kind) {
            throw ConfigurationError.notAFile(path, reason: "is \(kind), not a regular file")
        } catch .unreadable(_, let reason) {
            throw ConfigurationError.notAFile(path, reason: "cannot be read: " + reason)
        }
        guard let data = read else {
            throw ConfigurationError.notAFile(path, reason: "is larger than \(Self.largestFile >> 20) MiB")
        }
        do { return try Configuration(parsing: String(decoding: data, as: UTF8.self)) } catch let error
            as ConfigurationError
        {
            throw ConfigurationError.inFile(path, error)
        }
    }

    /// Writes the file at `path` atomically (temporary file, then rename).
    ///
    /// Refuses, before writing anything, a key outside the known set or a value with a control character,
    /// whichever way it was set.
    public func save(path: String) throws {
        for (key, value) in entries {
            guard !Self.containsControl(key),
                Self.keys.contains(where: { $0.key == key }) || Self.integrationKey(key) != nil
                    || Self.presetKey(key) != nil
                    || Self.serverProfileKey(key) != nil || Self.aliasKey(key) != nil
            else {
                throw ConfigurationError.unknownKey(key, line: nil)
            }
            guard !Self.containsControl(value) else { throw ConfigurationError.controlCharacter(key: key) }
        }
        try AtomicFile.write(Array(fileText.utf8), to: path, permissions: 0o600)
    }
}

/// A configuration file or value llmster cannot use.
public enum ConfigurationError: Error, Equatable, CustomStringConvertible {
    case unknownKey(String, line: Int?)
    case invalidValue(key: String, value: String, expected: String)
    /// A line without `=`; its text is never repeated, as it may be a pasted token.
    case malformedLine(Int)
    /// A key's value holds a newline, carriage return, NUL or another control character.
    case controlCharacter(key: String)
    /// The configuration path cannot be read as a file; `reason` says why (`does not exist`, `is a directory`, `is a
    /// device, not a regular file`).
    case notAFile(String, reason: String)
    indirect case inFile(String, ConfigurationError)

    public var description: String {
        switch self {
        case .unknownKey(let key, let line):
            let keys = Configuration.keys.map(\.key)
            let known =
                (keys + [
                    "server.NAME", "alias.NAME", "preset.NAME.…", "integration.NAME", "integration.NAME.allowed_tools"
                ]).joined(separator: ", ")
            let suggestion = EditDistance.nearest(to: key, in: keys, maximum: 3).map { " (did you mean \($0)?)" } ?? ""
            return
                "unknown setting '\(Self.visible(key))'\(line.map { " on line \($0)" } ?? "")\(suggestion); known settings: \(known)"
        case .invalidValue(let key, let value, let expected):
            return
                "'\(Self.visible(ServerURL.redactingPasswords(in: value)))' is not a valid \(key): expected \(expected)"
        case .malformedLine(let line):
            return "line \(line) is not `key = value`: it has no `=` (the line is not shown, in case it holds a secret)"
        case .controlCharacter(let key):
            return
                "the value of \(Self.visible(key)) contains a control character (such as a newline); a setting is one line of text"
        case .notAFile(let path, let reason):
            return "the configuration file \(path) \(reason)"
        case .inFile(let path, let error):
            return "\(path): \(error)"
        }
    }

    /// `text` with control characters written as `\u{…}`, so a message can never carry them to a terminal.
    private static func visible(_ text: String) -> String {
        guard Configuration.containsControl(text) else { return text }
        return text.unicodeScalars.map {
            Configuration.containsControl(String($0)) ? "\\u{\(String($0.value, radix: 16))}" : String($0)
        }.joined()
    }
}
