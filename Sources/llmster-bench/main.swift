// `make bench`: each section lives in its own file of this target and prints its own figures.
// Usage: llmster-bench [section…]   (sections: sse, markdown, library, startup, backup, stream; default: all)
// `llmster-bench --consume-chat URL PROMPT` is the stream section's helper process.

import SystemSupport

if CommandLine.arguments.count == 4, CommandLine.arguments[1] == consumeChatArgument {
    // As `llmster` does at start-up, so the pipeline figure is comparable with `ask`'s.
    ProcessMemory.returnLargeBuffersToSystem()
    try await consumeChat(server: CommandLine.arguments[2], prompt: CommandLine.arguments[3])
} else {
    let requested = Set(CommandLine.arguments.dropFirst())
    let sections: [(name: String, run: () async throws -> Void)] = [
        ("sse", sseBench),
        ("markdown", markdownBench),
        ("library", libraryBench),
        ("startup", startupBench),
        ("backup", backupBench),
        ("stream", streamBench),
    ]
    for section in sections where requested.isEmpty || requested.contains(section.name) {
        print("== \(section.name)")
        try await section.run()
    }
}
