import Chat
import Foundation
import Library
import Markdown
import SystemSupport
import TerminalMarkdown

/// `/save`: this conversation (or its last reply) written to a Markdown file.
@ReplActor enum SaveCommand {
    /// Writes the transcript (with `--last`, only the last reply) to `path` as `OutputFile` does, asking before replacing a regular file.
    ///
    /// The file holds what `llmster show` prints to a pipe, byte for byte: the Markdown sanitised, so no escape
    /// sequence a model wrote reaches a terminal that later shows the file.
    static func save(_ arguments: ArgumentParser.Parsed, repl: ReplSession) async throws {
        guard arguments.positionals.count == 1 else { throw UsageError("name the file to write") }
        guard let conversation = await repl.currentConversation() else {
            repl.output.line("Nothing to save yet.")
            return
        }
        let path = (arguments.positionals[0] as NSString).expandingTildeInPath
        let lastOnly = arguments.has(.last)
        let transcript: String = try await repl.chat.withLibrary { library in
            if lastOnly {
                guard
                    let reply = try library.messages(conversationId: conversation.id).last(where: {
                        $0.role == .assistant
                    })
                else {
                    throw UsageError("there is no reply to save yet")
                }
                return reply.text.hasSuffix("\n") ? reply.text : reply.text + "\n"
            }
            return try Transcript.markdown(
                of: conversation, library: library, reasoning: arguments.has(.reasoning), tools: false)
        }
        let markdown = UntrustedText.sanitize(transcript)
        let output: OutputFile
        do { output = try OutputFile(path) } catch { throw UsageError("\(error)") }
        if output.replacesAFile,
            !(await repl.confirm("\(UntrustedText.sanitize(arguments.positionals[0])) exists; replace it?"))
        {
            return
        }
        // The error names the path and, for a replaced file, that the previous one is unchanged.
        do { try output.write(Array(markdown.utf8)) } catch { throw UsageError("\(error)") }
        let what = lastOnly ? "the last reply" : "this conversation"
        repl.output.line(
            "Saved \(what) to \(UntrustedText.sanitize(output.description)) (\(Units.bytes(Int64(markdown.utf8.count))))."
        )
    }
}
