/// Benchmark section `startup` (placeholder until its module lands).
func startupBench() async throws {}
