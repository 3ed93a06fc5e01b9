import Foundation
import SystemSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Reads files, directories and glob patterns into context items, each read once and checked.
///
/// A file named outright must be a regular file of UTF-8 text within the item limit, or it is refused with the
/// reason: a FIFO, device or socket is refused without being read (standard input is named `-` by the faces). A
/// directory or a pattern gives its text files: hidden entries, `.gitignore`d paths, binary and undecodable files,
/// files over the limit and non-regular files are skipped and listed, so the face can say what was taken and what was not.
public struct ContextReader: Sendable {
    public var limits: ContextLimits
    /// Where relative paths start (the process's working directory by default).
    public var directory: String

    /// The most files one directory or pattern gives, so `-f /` cannot walk the whole disk.
    public static let maximumFiles = 500

    /// Creates a reader.
    public init(limits: ContextLimits, directory: String = FileManager.default.currentDirectoryPath) {
        self.limits = limits
        self.directory = directory
    }

    /// What a path gave: the items taken and the paths passed over, each with why.
    public struct Reading: Sendable, Equatable {
        public var items: [ContextItem] = []
        public var skipped: [Skipped] = []
        /// Set once `maximumFiles` files or the message limit is reached: the walk stops there.
        var isFull = false
    }

    /// A path left out of a directory or pattern.
    public struct Skipped: Sendable, Equatable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path) (\(reason))" }
    }

    /// The item(s) `path` names: a file, a directory (its text files) or a glob pattern (`*`, `?`, `[…]`).
    public func read(path: String) throws(ContextError) -> Reading {
        let expanded = (path as NSString).expandingTildeInPath
        let full = expanded.hasPrefix("/") ? expanded : directory + "/" + expanded
        switch FileKind.of(full) {
        case .success(.directory):
            var reading = Reading()
            walk(full, name: path.hasSuffix("/") ? String(path.dropLast()) : path, rules: [], into: &reading)
            if reading.items.isEmpty { throw .emptyDirectory(path, skipped: reading.skipped.count) }
            return reading
        case .failure(let error) where [ENOENT, ENOTDIR].contains(error.code): break
        default: return Reading(items: [try file(full, name: path)])  // `file` says why a loop or a device is refused
        }
        guard path.contains(where: { "*?[".contains($0) }) else { throw .notFound(path) }
        var reading = Reading()
        var isDirectory: ObjCBool = false
        for match in Self.glob(full) where !reading.isFull {
            let name = expanded.hasPrefix("/") ? match : String(match.dropFirst(directory.count + 1))
            if FileManager.default.fileExists(atPath: match, isDirectory: &isDirectory), isDirectory.boolValue {
                walk(match, name: name, rules: [], into: &reading)
            } else {
                take(match, name: name, into: &reading)
            }
        }
        if reading.items.isEmpty {
            if reading.skipped.isEmpty { throw .noMatch(path) }
            throw .emptyDirectory(path, skipped: reading.skipped.count)
        }
        return reading
    }

    /// The item for bytes read elsewhere (standard input, an editor's buffer), checked as a named file is.
    public func text(named name: String, bytes: [UInt8], source: ContextItem.Source = .text) throws(ContextError)
        -> ContextItem
    {
        guard bytes.count <= limits.item else { throw .itemTooLarge(name, size: bytes.count, limit: limits.item) }
        return ContextItem(name: name, source: source, text: try Self.decode(bytes, name: name))
    }

    /// UTF-8 text from `bytes`, refusing NUL bytes (binary) and invalid UTF-8.
    public static func decode(_ bytes: [UInt8], name: String) throws(ContextError) -> String {
        if bytes.contains(0) { throw .binary(name) }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .notUTF8(name) }
        return text
    }

    /// The item for the regular file `full`; anything else (a FIFO, a device, a socket) is refused without blocking.
    private func file(_ full: String, name: String) throws(ContextError) -> ContextItem {
        let bytes: [UInt8]?
        do throws(RegularFileError) { bytes = try RegularFile.read(full, limit: limits.item) } catch {
            switch error {
            case .notFound: throw .notFound(name)
            case .symlinkLoop: throw .symlinkLoop(name)
            case .notRegular(_, let kind): throw .notRegular(name, kind: kind)
            case .unreadable(_, let reason): throw .unreadable(name, reason: reason)
            }
        }
        guard let bytes else {
            let size = (try? FileManager.default.attributesOfItem(atPath: full)[.size] as? Int) ?? nil
            throw .itemTooLarge(name, size: size, limit: limits.item)
        }
        return ContextItem(name: name, source: .file, text: try Self.decode(bytes, name: name))
    }

    private func take(_ full: String, name: String, into reading: inout Reading) {
        guard !reading.isFull else { return }
        if reading.items.count == Self.maximumFiles || reading.items.reduce(0, { $0 + $1.byteCount }) > limits.message {
            reading.isFull = true
            let reason =
                reading.items.count == Self.maximumFiles
                ? "more than \(Self.maximumFiles) files" : "past context_message_limit"
            reading.skipped.append(Skipped(path: name, reason: "\(reason): it and everything after it not read"))
            return
        }
        do { reading.items.append(try file(full, name: name)) } catch {
            let reason =
                switch error {
                case .binary: "binary"
                case .notUTF8: "not UTF-8 text"
                case .itemTooLarge: "larger than \(ContextItem.size(limits.item))"
                case .notRegular(_, let kind): "\(kind), not a regular file"
                case .symlinkLoop: "a symlink loop"
                default: error.description
                }
            reading.skipped.append(Skipped(path: name, reason: reason))
        }
    }

    /// Adds the text files under `full`, depth first in name order; `rules` are the `.gitignore` rules above it.
    private func walk(_ full: String, name: String, rules: [GitignoreRule], into reading: inout Reading) {
        let rules = rules + GitignoreRule.load(directory: full)
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: full) else {
            reading.skipped.append(Skipped(path: name, reason: "cannot list it"))
            return
        }
        for entry in entries.sorted() where !reading.isFull {
            let path = full + "/" + entry
            let shown = name.isEmpty || name == "." ? entry : name + "/" + entry
            if entry.hasPrefix(".") { continue }
            var isDirectory: ObjCBool = false
            let isLink = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                if case .failure(let error) = FileKind.of(path), error.code == ELOOP {
                    reading.skipped.append(Skipped(path: shown, reason: "a symlink loop"))
                }
                continue
            }
            if GitignoreRule.ignores(rules, path: path, isDirectory: isDirectory.boolValue) {
                reading.skipped.append(Skipped(path: shown, reason: "ignored by .gitignore"))
                continue
            }
            if isDirectory.boolValue {
                if isLink {
                    reading.skipped.append(Skipped(path: shown, reason: "a link to a directory"))
                    continue
                }
                walk(path, name: shown, rules: rules, into: &reading)
            } else {
                take(path, name: shown, into: &reading)
            }
        }
    }

    private static func glob(_ pattern: String) -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        guard Glibc.glob(pattern, 0, nil, &result) == 0 else { return [] }
        return (0..<Int(result.gl_pathc)).compactMap { result.gl_pathv[$0].map { String(cString: $0) } }.sorted()
    }
}
