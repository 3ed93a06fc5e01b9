internal import CCmarkGFM
import Glibc

/// The memory cmark-gfm allocates during one parse: a bump allocator over chunks kept from parse to parse, all of
/// it released at once by ``reset()`` after the parse's nodes are converted and freed.
///
/// cmark's default allocator calls `calloc` (which glibc serves without its per-thread cache) and `free` once per
/// node, delimiter, buffer and literal, about 60 times per streamed paragraph; here an allocation is a pointer bump
/// and a `memset`, a reallocation of the last block grows it in place, and a free does nothing. Blocks larger than
/// `largeBlockBytes` (a long code block's literal, a whole document's buffers) get their own `malloc`, so a large
/// parse still returns its memory at the reset. At most `keptChunks` chunks are kept, more than a streamed step's
/// parse takes (up to 10 for an 8 MiB reply of mixed blocks from a fast server): a chunk is larger than glibc's
/// `mmap` threshold, so one freed and taken again is mapped afresh and faulted in page by page (keeping 4 did that
/// 500 times per such reply, 15% of a prose reply's CPU on a terminal). An arena never reuses what cmark frees
/// during the parse, so texts longer than `largestParseBytes` (a whole long reply rendered at once) are parsed with
/// cmark's own allocator: an 8 MiB reply's render peaked 54 MB higher in the arena.
///
/// Parses are serialised by `MarkdownParser.lock`, and only they use the arena (its state is that lock's).
package enum CmarkArena {
    /// The allocator to hand `cmark_parser_new_with_mem`. Unsafe only to the compiler: the pointee is written once,
    /// here, and never freed, so every thread may read it.
    nonisolated(unsafe) static let memory: UnsafeMutablePointer<cmark_mem> = {
        let memory = UnsafeMutablePointer<cmark_mem>.allocate(capacity: 1)
        memory.initialize(
            to: cmark_mem(
                calloc: { count, size in
                    let (bytes, overflow) = count.multipliedReportingOverflow(by: size)
                    // cmark's default allocator aborts as well when memory cannot be had; it never checks for NULL.
                    if overflow { fatalError("cmark-gfm asked for \(count) × \(size) bytes") }
                    return CmarkArena.allocate(bytes, zeroed: true)
                },
                realloc: { pointer, size in CmarkArena.reallocate(pointer, to: size) },
                free: { _ in }))
        return memory
    }()

    /// The longest text parsed in the arena: the stream's parses (a block, or what one step of the display draws) are shorter.
    package static let largestParseBytes = 1 << 20
    private static let chunkBytes = 256 << 10
    private static let largeBlockBytes = 64 << 10
    private static let keptChunks = 16

    /// Each block starts with this header: its size in bytes and, for a block of its own, its index in `large` plus one.
    private static let headerBytes = 16

    // The arena's state, guarded by `MarkdownParser.lock` (see the type's note): the lock keeps accesses apart, so
    // Swift's dynamic exclusivity checks on these globals (2% of a streamed render's CPU) are left out.
    @exclusivity(unchecked) nonisolated(unsafe) private static var chunks: [UnsafeMutableRawPointer] = []
    @exclusivity(unchecked) nonisolated(unsafe) private static var current = 0
    @exclusivity(unchecked) nonisolated(unsafe) private static var used = 0
    /// The start of chunk `current` (nil before the first chunk), so that a block is a bump from it.
    @exclusivity(unchecked) nonisolated(unsafe) private static var currentChunk: UnsafeMutableRawPointer?
    @exclusivity(unchecked) nonisolated(unsafe) private static var large: [UnsafeMutableRawPointer] = []

    /// Releases every block: the large ones to the system, the chunks for the next parse (beyond `keptChunks`, to the system).
    package static func reset() {
        for block in large { free(block) }
        large.removeAll(keepingCapacity: true)
        while chunks.count > keptChunks { chunks.removeLast().deallocate() }
        current = 0
        used = 0
        currentChunk = chunks.first
    }

    private static func rounded(_ bytes: Int) -> Int { (bytes + 15) & ~15 }

    /// `bytes` bytes, 16-byte aligned, set to zero when `zeroed` (cmark's `calloc`).
    private static func allocate(_ bytes: Int, zeroed: Bool) -> UnsafeMutableRawPointer {
        let block: UnsafeMutableRawPointer
        if bytes > largeBlockBytes {
            guard let own = malloc(headerBytes + bytes) else {
                fatalError("out of memory for cmark-gfm (\(bytes) bytes)")
            }
            large.append(own)
            block = own
            block.storeBytes(of: large.count, toByteOffset: 8, as: Int.self)
        } else {
            let needed = headerBytes + rounded(bytes)
            if let chunk = currentChunk, used + needed <= chunkBytes {
                block = chunk + used
            } else {
                if currentChunk != nil { current += 1 }
                if current == chunks.count { chunks.append(.allocate(byteCount: chunkBytes, alignment: 16)) }
                currentChunk = chunks[current]
                used = 0
                block = chunks[current]
            }
            used += needed
            block.storeBytes(of: 0, toByteOffset: 8, as: Int.self)
        }
        block.storeBytes(of: bytes, as: Int.self)
        if zeroed { memset(block + headerBytes, 0, bytes) }
        return block + headerBytes
    }

    /// The block at `pointer` (none when nil) resized to `bytes`, its contents kept up to the smaller size (cmark's `realloc`).
    private static func reallocate(_ pointer: UnsafeMutableRawPointer?, to bytes: Int) -> UnsafeMutableRawPointer {
        guard let pointer else { return allocate(bytes, zeroed: false) }
        let block = pointer - headerBytes
        let oldBytes = block.load(as: Int.self)
        let ownIndex = block.load(fromByteOffset: 8, as: Int.self)
        if ownIndex > 0, bytes > largeBlockBytes {
            guard let moved = realloc(block, headerBytes + bytes) else {
                fatalError("out of memory for cmark-gfm (\(bytes) bytes)")
            }
            large[ownIndex - 1] = moved
            moved.storeBytes(of: bytes, as: Int.self)
            return moved + headerBytes
        }
        // The last block of the current chunk grows (or shrinks) where it is when the chunk has room.
        let growth = rounded(bytes) - rounded(oldBytes)
        if ownIndex == 0, bytes <= largeBlockBytes, let chunk = currentChunk,
            pointer + rounded(oldBytes) == chunk + used,
            used + growth <= chunkBytes
        {
            used += growth
            block.storeBytes(of: bytes, as: Int.self)
            return pointer
        }
        let moved = allocate(bytes, zeroed: false)
        moved.copyMemory(from: pointer, byteCount: min(oldBytes, bytes))
        return moved
    }
}
