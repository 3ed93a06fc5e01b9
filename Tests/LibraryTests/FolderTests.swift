import Library
import Testing

@Suite struct FolderTests {
    @Test func nestedFoldersAreOrderedAndFoundByPath() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let work = try store.createFolder(name: "Work")
        let home = try store.createFolder(name: "Home")
        let research = try store.createFolder(name: "Research", parentId: work.id)
        let admin = try store.createFolder(name: "Admin", parentId: work.id)
        #expect(try store.folders().map(\.name) == ["Work", "Research", "Admin", "Home"])
        #expect([work.position, home.position, research.position, admin.position] == [0, 1, 0, 1])
        #expect(try store.folder(path: "Work/Research") == research)
        #expect(try store.folder(path: " work / research ") == research)
        #expect(try store.folder(path: "Home/Research") == nil)
        #expect(try store.folderPath(id: admin.id) == "Work/Admin")
    }

    @Test func siblingNamesAreUniqueButCousinsMayShareThem() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let work = try store.createFolder(name: "Work")
        let home = try store.createFolder(name: "Home")
        try store.createFolder(name: "Notes", parentId: work.id)
        try store.createFolder(name: "Notes", parentId: home.id)
        #expect(throws: LibraryError.folderExists(name: "notes", parentId: work.id)) {
            try store.createFolder(name: "notes", parentId: work.id)
        }
        #expect(throws: LibraryError.folderExists(name: "work", parentId: nil)) {
            try store.createFolder(name: "work")
        }
        #expect(throws: LibraryError.folderExists(name: "Home", parentId: nil)) {
            try store.renameFolder(id: work.id, to: "Home")
        }
        #expect(throws: LibraryError.invalidFolderName("a/b")) { try store.createFolder(name: "a/b") }
        #expect(throws: LibraryError.invalidFolderName("  ")) { try store.createFolder(name: "  ") }
        try store.renameFolder(id: work.id, to: "Job")
        #expect(try store.folder(path: "Job/Notes") != nil)
    }

    @Test func deletingAFolderMovesItsContentsUp() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        let work = try store.createFolder(name: "Work")
        let notes = try store.createFolder(name: "Notes")
        let project = try store.createFolder(name: "Project", parentId: work.id)
        let innerNotes = try store.createFolder(name: "Notes", parentId: project.id)
        let inProject = try store.createConversation(title: "in project", folderId: project.id)
        let inNotes = try store.createConversation(title: "in notes", folderId: innerNotes.id)

        try store.deleteFolder(id: project.id)
        #expect(try store.conversation(id: inProject.id)?.folderId == work.id)
        #expect(try store.conversation(id: inNotes.id)?.folderId == innerNotes.id)
        #expect(try store.folderPath(id: innerNotes.id) == "Work/Notes")

        try store.deleteFolder(id: work.id)
        #expect(try store.conversation(id: inProject.id)?.folderId == nil)
        #expect(try store.folderPath(id: innerNotes.id) == "Notes (2)")
        #expect(try store.folders().map(\.name) == ["Notes", "Notes (2)"])
        #expect(try store.folder(id: notes.id) == notes)
        #expect(try store.statistics().conversations == 2)
    }

    @Test func deletingAFolderThatIsNotThereSaysSo() throws {
        let library = TemporaryLibrary()
        let store = try library.open()
        #expect(throws: LibraryError.notFound(kind: "folder", reference: "999")) {
            try store.deleteFolder(id: 999)
        }
    }
}
