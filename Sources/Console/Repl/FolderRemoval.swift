import Chat
import Library
import Markdown
import TerminalMarkdown

/// `/folder rm PATH`: removes a folder; when it holds conversations or sub-folders, says where they go (its
/// parent, as the library moves them) and asks first.
@ReplActor
enum FolderRemoval {
    static func run(path: String, repl: ReplSession) async throws {
        let (folder, contents, single) = try await repl.chat.withLibrary { library -> (Folder, String?, Bool) in
            guard let folder = try library.folder(path: path) else {
                throw UsageError("there is no folder '\(path)'; /folder lists them")
            }
            let conversations = try library.conversations(folderId: .some(folder.id)).count
            let subfolders = try library.folders().filter { $0.parentId == folder.id }.map(\.name).sorted()
            var parts: [String] = []
            if conversations > 0 {
                parts.append(conversations == 1 ? "1 conversation" : "\(conversations) conversations")
            }
            if !subfolders.isEmpty {
                parts.append(
                    (subfolders.count == 1 ? "sub-folder " : "sub-folders ") + subfolders.joined(separator: ", "))
            }
            return (
                folder, parts.isEmpty ? nil : parts.joined(separator: " and "), conversations + subfolders.count == 1
            )
        }
        let name = UntrustedText.oneLine(path)
        if let contents {
            let parentPath = path.split(separator: "/").dropLast().joined(separator: "/")
            let destination = parentPath.isEmpty ? "the top level" : "folder \(UntrustedText.oneLine(parentPath))"
            guard
                await repl.confirm(
                    "Remove folder \(name)? Its \(UntrustedText.oneLine(contents)) \(single ? "moves" : "move") to \(destination)."
                )
            else {
                repl.output.line("Kept folder \(name).")
                return
            }
        }
        try await repl.chat.withLibrary { try $0.deleteFolder(id: folder.id) }
        repl.output.line("Removed folder \(name).")
    }
}
