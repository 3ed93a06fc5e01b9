/// Benchmark section `sse` (placeholder until its module lands).
func sseBench() async throws {}
