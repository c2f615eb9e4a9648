import Glibc

extension FileDescriptor {
    /// Linux's fallocate(2), which Glibc's module declares only under _GNU_SOURCE: taken from the C library by name,
    /// with its C signature (off_t is 64 bits on every platform Swift builds for).
    private typealias Fallocate = @convention(c) (Int32, Int32, off_t, off_t) -> Int32
    private static let fallocate: Fallocate? = dlsym(nil, "fallocate").map { unsafeBitCast($0, to: Fallocate.self) }

    /// fallocate's modes (linux/falloc.h, which Glibc's module does not export either).
    private static let keepSize: Int32 = 0x01
    private static let punchHole: Int32 = 0x02

    /// Allocates the blocks of `count` bytes from `offset`, past the end of the file without moving it (the file's
    /// size stays; readers see nothing new): a later write there cannot fail for want of space. Blocks already
    /// allocated cost nothing. EOPNOTSUPP on a file system that cannot allocate ahead.
    public static func allocate(_ descriptor: Int32, from offset: Int, count: Int) throws(Errno) {
        try callFallocate(descriptor, mode: keepSize, offset: offset, count: count)
    }

    /// Frees the blocks of `count` bytes from `offset` (what `allocate` took past the end, once it is not needed).
    public static func deallocate(_ descriptor: Int32, from offset: Int, count: Int) throws(Errno) {
        try callFallocate(descriptor, mode: keepSize | punchHole, offset: offset, count: count)
    }

    private static func callFallocate(_ descriptor: Int32, mode: Int32, offset: Int, count: Int) throws(Errno) {
        guard count > 0 else { return }
        guard let fallocate else { throw Errno(EOPNOTSUPP) }
        while fallocate(descriptor, mode, off_t(offset), off_t(count)) != 0 {
            guard Glibc.errno == EINTR else { throw .current }
        }
    }
}
