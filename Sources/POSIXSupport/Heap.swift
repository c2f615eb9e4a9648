/// The C library's heap: how many arenas it keeps, and giving free memory back to the system. glibc's malloc.h is not
/// among the Glibc module's headers, so its two calls are declared here.
public enum Heap {
    /// glibc's M_ARENA_MAX.
    private static let arenaMaximum: Int32 = -8

    /// At most `count` malloc arenas (mallopt(3)). Without it each thread that allocates may get an arena of its own
    /// (up to 8 a core), and memory freed in one stays mapped there.
    public static func limitArenas(to count: Int32) {
        _ = mallocOption(arenaMaximum, count)
    }

    /// Gives the free memory of every arena back to the system (malloc_trim(3)).
    public static func giveBackFreeMemory() {
        _ = mallocTrim(0)
    }
}

@_silgen_name("mallopt")
private func mallocOption(_ parameter: Int32, _ value: Int32) -> Int32

@_silgen_name("malloc_trim")
private func mallocTrim(_ pad: Int) -> Int32
