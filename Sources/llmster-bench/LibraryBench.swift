/// Benchmark section `library` (placeholder until its module lands).
func libraryBench() async throws {}
