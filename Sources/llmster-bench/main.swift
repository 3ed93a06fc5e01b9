// `make bench`: each section lives in its own file of this target and prints its own figures.
// Usage: llmster-bench [section…]   (sections: stream, sse, markdown, render, library, startup, backup; default: all)
// `llmster-bench --consume-chat URL PROMPT` is the stream section's helper process.

import SystemSupport

if CommandLine.arguments.count == 4, CommandLine.arguments[1] == consumeChatArgument {
    // As `llmster` does at start-up, so the pipeline figure is comparable with `ask`'s.
    ProcessMemory.returnLargeBuffersToSystem()
    try await consumeChat(server: CommandLine.arguments[2], prompt: CommandLine.arguments[3])
} else {
    let requested = Set(CommandLine.arguments.dropFirst())
    // `stream` first: a child's peak RSS starts from this process's own at its spawn, so its memory figures are
    // taken before the other sections (a 100 MB backup, say) raise this process's peak.
    let sections: [(name: String, run: () async throws -> Void)] = [
        ("stream", streamBench),
        ("sse", sseBench),
        ("markdown", markdownBench),
        ("render", renderBench),
        ("library", libraryBench),
        ("startup", startupBench),
        ("backup", backupBench)
    ]
    for section in sections where requested.isEmpty || requested.contains(section.name) {
        print("== \(section.name)")
        try await section.run()
    }
}
