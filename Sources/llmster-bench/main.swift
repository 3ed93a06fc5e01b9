// `make bench`: each section lives in its own file of this target and prints its own figures.
// Usage: llmster-bench [section…]   (sections: sse, markdown, library, startup, backup, stream; default: all)

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
