import Foundation

extension LibraryStore {
    private static let folderColumns = "id, name, parent_id, position"

    private static func folder(_ row: SQLiteStatement) -> Folder {
        Folder(id: row.int64(0), name: row.string(1), parentId: row.optionalInt64(2), position: row.int(3))
    }

    /// Creates a folder at the end of its siblings; `parentId` nil makes it top-level.
    @discardableResult
    public func createFolder(name: String, parentId: Int64? = nil) throws -> Folder {
        let name = try Self.validFolderName(name)
        return try connection.transaction {
            if let parentId { _ = try requireFolder(parentId) }
            try requireFreeName(name, parentId: parentId, except: nil)
            let position =
                try connection.first(
                    "SELECT ifnull(max(position) + 1, 0) FROM folders WHERE parent_id IS ?", [.integer(parentId)]
                ) { $0.int(0) } ?? 0
            try connection.run(
                "INSERT INTO folders (name, parent_id, position) VALUES (?, ?, ?)",
                [.text(name), .integer(parentId), .integer(Int64(position))])
            return Folder(id: connection.lastInsertRowID, name: name, parentId: parentId, position: position)
        }
    }

    /// Renames a folder, keeping names unique among siblings.
    public func renameFolder(id: Int64, to name: String) throws {
        let name = try Self.validFolderName(name)
        try connection.transaction {
            let folder = try requireFolder(id)
            try requireFreeName(name, parentId: folder.parentId, except: id)
            try connection.run("UPDATE folders SET name = ? WHERE id = ?", [.text(name), .integer(id)])
        }
    }

    /// Deletes a folder; its conversations and subfolders move to its parent (or the top level).
    ///
    /// A subfolder whose name is taken in its new place gets a suffix: "Notes (2)".
    public func deleteFolder(id: Int64) throws {
        try connection.transaction {
            let folder = try requireFolder(id)
            let parent = SQLValue.integer(folder.parentId)
            try connection.run("UPDATE conversations SET folder_id = ? WHERE folder_id = ?", [parent, .integer(id)])
            for child in try connection.query(
                "SELECT \(Self.folderColumns) FROM folders WHERE parent_id = ? ORDER BY position", [.integer(id)],
                row: Self.folder)
            {
                try moveChild(child, from: folder)
            }
            try connection.run("DELETE FROM folders WHERE id = ?", [.integer(id)])
        }
    }

    private func moveChild(_ child: Folder, from folder: Folder) throws {
        var name = child.name
        var suffix = 2
        while try folderNamed(name, parentId: folder.parentId, except: child.id) != nil {
            name = "\(child.name) (\(suffix))"
            suffix += 1
        }
        try connection.run("UPDATE folders SET name = ? WHERE id = ?", [.text(name), .integer(child.id)])
        try connection.run(
            """
            UPDATE folders SET parent_id = ?1,
                position = (SELECT ifnull(max(position) + 1, 0) FROM folders WHERE parent_id IS ?1)
            WHERE id = ?2
            """, [.integer(folder.parentId), .integer(child.id)])
    }

    /// Every folder, parents before children, siblings in order.
    public func folders() throws -> [Folder] {
        let all = try connection.query(
            "SELECT \(Self.folderColumns) FROM folders ORDER BY position, id", row: Self.folder)
        let children = Dictionary(grouping: all, by: \.parentId)
        var ordered: [Folder] = []
        func visit(_ parent: Int64?) {
            for folder in children[parent] ?? [] {
                ordered.append(folder)
                visit(folder.id)
            }
        }
        visit(nil)
        return ordered
    }

    /// The folder with this id, or nil.
    public func folder(id: Int64) throws -> Folder? {
        try connection.first(
            "SELECT \(Self.folderColumns) FROM folders WHERE id = ?", [.integer(id)], row: Self.folder)
    }

    /// The folder at a "/"-separated path such as "Work/Research", matching names case-insensitively.
    public func folder(path: String) throws -> Folder? {
        let names = path.split(separator: "/").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !names.isEmpty else { return nil }
        var current: Folder?
        for name in names {
            guard let next = try folderNamed(name, parentId: current?.id, except: nil) else { return nil }
            current = next
        }
        return current
    }

    /// The folder at a "/"-separated path, creating the missing folders along it in one transaction.
    public func ensureFolder(path: String) throws -> Folder {
        let names = path.split(separator: "/").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !names.isEmpty else { throw LibraryError.invalidFolderName(path) }
        return try transaction {
            var current: Folder?
            for name in names {
                current =
                    try folderNamed(name, parentId: current?.id, except: nil)
                    ?? createFolder(name: name, parentId: current?.id)
            }
            return current!
        }
    }

    /// The "/"-separated path of a folder, e.g. "Work/Research".
    public func folderPath(id: Int64) throws -> String {
        var names: [String] = []
        var next: Int64? = id
        while let current = next {
            let folder = try requireFolder(current)
            names.append(folder.name)
            next = folder.parentId
        }
        return names.reversed().joined(separator: "/")
    }

    /// Every folder's path (`Work/Clients`) by id, from one read of the folders (in any order; a parent cycle in a
    /// damaged library ends the path where it repeats).
    public func folderPaths() throws -> [Int64: String] {
        let byId = Dictionary(try folders().map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var paths: [Int64: String] = [:]
        func path(of id: Int64, depth: Int) -> String? {
            if let known = paths[id] { return known }
            guard let folder = byId[id], depth <= byId.count else { return nil }
            let result =
                folder.parentId.flatMap { path(of: $0, depth: depth + 1) }.map { $0 + "/" + folder.name } ?? folder.name
            paths[id] = result
            return result
        }
        for id in byId.keys { _ = path(of: id, depth: 0) }
        return paths
    }

    /// The folder with this id, or a `notFound` error.
    func requireFolder(_ id: Int64) throws -> Folder {
        guard let folder = try folder(id: id) else { throw LibraryError.notFound(kind: "folder", reference: "\(id)") }
        return folder
    }

    private func folderNamed(_ name: String, parentId: Int64?, except: Int64?) throws -> Folder? {
        try connection.first(
            """
            SELECT \(Self.folderColumns) FROM folders
            WHERE ifnull(parent_id, 0) = ifnull(?, 0) AND name = ? COLLATE NOCASE AND id IS NOT ?
            """, [.integer(parentId), .text(name), .integer(except)], row: Self.folder)
    }

    private func requireFreeName(_ name: String, parentId: Int64?, except: Int64?) throws {
        if try folderNamed(name, parentId: parentId, except: except) != nil {
            throw LibraryError.folderExists(name: name, parentId: parentId)
        }
    }

    private static func validFolderName(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, !trimmed.contains("/") else { throw LibraryError.invalidFolderName(name) }
        return trimmed
    }
}
