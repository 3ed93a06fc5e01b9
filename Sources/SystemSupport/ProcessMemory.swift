internal import CSystem

/// Process-wide memory settings, made once at start-up.
public enum ProcessMemory {
    /// Returns buffers of `bytes` and more to the system as soon as they are freed.
    ///
    /// A long reply's text grows by doubling through buffers nearly as large as itself; glibc's default
    /// would keep the outgrown ones on the heap after their first free, so peak memory would grow with
    /// each reply beyond the text itself.
    @discardableResult
    public static func returnLargeBuffersToSystem(from bytes: Int = 256 << 10) -> Bool {
        llmster_mmap_large_allocations(Int32(clamping: bytes)) == 1
    }
}
