import Foundation
import Library

/// Benchmark section `backup`: back up and restore a ~100 MB library (96 one-MiB attachments, 4,000 messages),
/// plain and password-protected; prints each step's time and the process's peak resident memory after it.
func backupBench() async throws {
    let directory = NSTemporaryDirectory() + "llmster-bench-backup-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let library = directory + "/library.sqlite3"
    var started = ContinuousClock.now
    try buildAttachmentLibrary(at: library)
    let size = (try FileManager.default.attributesOfItem(atPath: library)[.size] as? Int) ?? 0
    step("build the library (\(size / 1_000_000) MB)", since: started)

    let password = Array("bench password".utf8)
    for (label, secret) in [("plain", nil), ("encrypted, Argon2id moderate", password)] as [(String, [UInt8]?)] {
        let archive = directory + "/library-\(secret == nil ? "plain" : "encrypted").backup"
        started = ContinuousClock.now
        try LibraryBackup.write(libraryPath: library, to: archive, password: secret)
        let archiveSize = (try FileManager.default.attributesOfItem(atPath: archive)[.size] as? Int) ?? 0
        step("backup, \(label) (\(archiveSize / 1_000_000) MB)", since: started)
        started = ContinuousClock.now
        let target = directory + "/restored-\(secret == nil ? "plain" : "encrypted").sqlite3"
        let prepared = try LibraryBackup.prepareRestore(archive: archive, password: secret, libraryPath: target)
        try prepared.commit()
        step("restore, \(label) (\(prepared.statistics.attachments) attachments)", since: started)
    }
}

private func buildAttachmentLibrary(at path: String) throws {
    let store = try LibraryStore(path: path)
    let folder = try store.createFolder(name: "Bench")
    var seed: UInt64 = 7
    var attachment = [UInt8](repeating: 0, count: 1 << 20)
    try store.transaction {
        for index in 0..<400 {
            let conversation = try store.createConversation(
                title: "Bench \(index)", folderId: index % 2 == 0 ? folder.id : nil)
            for turn in 0..<10 {
                let text = String(repeating: "The river carries lanterns past the harbor at night. ", count: 20)
                let message = try store.appendMessage(
                    conversationId: conversation.id, role: turn % 2 == 0 ? .user : .assistant,
                    MessageContent(text: text))
                if turn == 0, index % 4 == 0, index / 4 < 96 {
                    for offset in stride(from: 0, to: attachment.count, by: 8) {
                        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                        withUnsafeBytes(of: seed) { attachment.replaceSubrange(offset..<(offset + 8), with: $0) }
                    }
                    try store.addAttachment(
                        messageId: message.id, name: "blob-\(index).bin", mimeType: "application/octet-stream",
                        bytes: attachment)
                }
            }
        }
    }
}

private func step(_ name: String, since started: ContinuousClock.Instant) {
    let (seconds, attoseconds) = (ContinuousClock.now - started).components
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    let time = String(format: "%.2f", Double(seconds) + Double(attoseconds) / 1e18)
    print("  \(name): \(time) s, peak RSS \(usage.ru_maxrss / 1024) MB")
}
