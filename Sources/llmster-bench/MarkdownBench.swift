/// Benchmark section `markdown` (placeholder until its module lands).
func markdownBench() async throws {}
