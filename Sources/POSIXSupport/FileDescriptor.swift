import Glibc

/// Thin calls on a descriptor the caller owns; each failure is the errno it left.
public enum FileDescriptor {
    /// Opens `path` with `flags` (O_CLOEXEC added: no descriptor leaks into a program the process executes); `mode`
    /// is the new file's, when `flags` may create one.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) throws(Errno) -> Int32 {
        let descriptor = Glibc.open(path, flags | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw .current }
        return descriptor
    }

    /// Gives the descriptor back; its number may be reused at once. Linux releases it even when close reports an error.
    public static func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }

    /// Opens `path` for reading (not as a controlling terminal, closed on exec) without waiting: a FIFO with no writer
    /// opens at once, where a plain open would hold the caller until one comes. Reads are non-blocking too.
    public static func openForReadingWithoutWaiting(_ path: String) throws(Errno) -> Int32 {
        try open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY)
    }

    /// What the descriptor is (fstat): its type, size, identity and times.
    public static func status(_ descriptor: Int32) throws(Errno) -> stat {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .current }
        return info
    }

    /// Makes the file's data durable (fdatasync): what was written survives a power cut.
    public static func synchronizeData(_ descriptor: Int32) throws(Errno) {
        guard fdatasync(descriptor) == 0 else { throw .current }
    }

    /// Makes the file durable with its metadata (fsync); on a directory, the names made or removed in it.
    public static func synchronize(_ descriptor: Int32) throws(Errno) {
        guard fsync(descriptor) == 0 else { throw .current }
    }

    /// Cuts the file, or extends it with zeros, to `size` bytes.
    public static func truncate(_ descriptor: Int32, to size: Int) throws(Errno) {
        guard ftruncate(descriptor, off_t(size)) == 0 else { throw .current }
    }

    /// Reads and writes return at once instead of waiting (O_NONBLOCK), and nothing else.
    public static func setNonBlocking(_ descriptor: Int32) throws(Errno) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else { throw .current }
    }

    /// Not inherited by a program the process executes (FD_CLOEXEC).
    public static func setCloseOnExec(_ descriptor: Int32) throws(Errno) {
        let flags = fcntl(descriptor, F_GETFD)
        guard flags >= 0, fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) == 0 else { throw .current }
    }

    /// Writes every byte, going on after a signal or a short write.
    public static func writeAll(_ descriptor: Int32, _ bytes: some Collection<UInt8>) throws(Errno) {
        let buffer = Array(bytes)
        var written = 0
        while written < buffer.count {
            let result = buffer.withUnsafeBytes { raw in
                Glibc.write(descriptor, raw.baseAddress! + written, raw.count - written)
            }
            if result < 0 {
                if Glibc.errno == EINTR { continue }
                throw .current
            }
            written += result
        }
    }

    /// Reads until the end of the file or `limit` bytes, whichever comes first, going on after a signal or a short
    /// read: a caller that needs a bound (a configuration file named /dev/zero) asks for one byte more than it allows.
    public static func read(_ descriptor: Int32, upTo limit: Int) throws(Errno) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: limit)
        var filled = 0
        while filled < limit {
            let result = bytes.withUnsafeMutableBytes { raw in
                Glibc.read(descriptor, raw.baseAddress! + filled, raw.count - filled)
            }
            if result < 0 {
                if Glibc.errno == EINTR { continue }
                throw .current
            }
            if result == 0 { break }
            filled += result
        }
        return Array(bytes.prefix(filled))
    }

    /// Reads up to `count` bytes at `offset` (pread: the file's position stays) until the end of the file, going on
    /// after a signal or a short read. The buffer is not filled ahead: asking for more than the file holds costs nothing.
    public static func read(_ descriptor: Int32, at offset: Int, upTo count: Int) throws(Errno) -> [UInt8] {
        var failure: Errno?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, filled in
            while filled < count {
                let result = pread(descriptor, buffer.baseAddress! + filled, count - filled, off_t(offset + filled))
                if result < 0 {
                    if Glibc.errno == EINTR { continue }
                    failure = .current
                    return
                }
                if result == 0 { return }
                filled += result
            }
        }
        if let failure { throw failure }
        return bytes
    }
}
