import Glibc

/// One file of the journal, named by the `seq` of its first event so that
/// name order is seq order and a reader knows where to start without reading.
struct SegmentFile: Sendable {
    static let suffix = ".jsonl"
    static let digits = 20

    let firstSeq: UInt64
    var bytes: Int
    /// When its newest event was written (seconds since the epoch); retention by age drops whole files.
    var newestAt: Double

    static func name(firstSeq: UInt64) -> String {
        let number = String(firstSeq)
        return String(repeating: "0", count: digits - number.count) + number + suffix
    }

    static func firstSeq(fromName name: String) -> UInt64? {
        guard name.hasSuffix(suffix) else { return nil }
        let stem = name.dropLast(suffix.count)
        guard stem.count == digits, stem.allSatisfy(\.isASCII), stem.allSatisfy(\.isNumber) else { return nil }
        return UInt64(stem)
    }
}

/// Thin wrappers over the calls the journal makes, failing with the errno kept.
enum FileCalls {
    static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o640) throws(JournalError) -> Int32 {
        let descriptor = Glibc.open(path, flags | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw .system(operation: "open", path: path, errno: errno) }
        return descriptor
    }

    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], path: String) throws(JournalError) {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw .system(operation: "write", path: path, errno: errno)
            }
            written += result
        }
    }

    static func readAt(_ descriptor: Int32, offset: Int, count: Int, path: String) throws(JournalError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let result = buffer.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + filled, count - filled, off_t(offset + filled))
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw .system(operation: "read", path: path, errno: errno)
            }
            if result == 0 { break }
            filled += result
        }
        buffer.removeSubrange(filled...)
        return buffer
    }

    static func syncData(_ descriptor: Int32, path: String) throws(JournalError) {
        guard fdatasync(descriptor) == 0 else { throw .system(operation: "fdatasync", path: path, errno: errno) }
    }

    static func truncate(_ descriptor: Int32, to size: Int, path: String) throws(JournalError) {
        guard ftruncate(descriptor, off_t(size)) == 0 else {
            throw .system(operation: "ftruncate", path: path, errno: errno)
        }
    }

    /// Makes a new or removed file name durable, not only its contents.
    static func syncDirectory(_ path: String) throws(JournalError) {
        let descriptor = try open(path, O_RDONLY | O_DIRECTORY)
        defer { Glibc.close(descriptor) }
        guard fsync(descriptor) == 0 else { throw .system(operation: "fsync", path: path, errno: errno) }
    }

    /// `mkdir -p`: the journal's directory and any missing parent.
    static func makeDirectories(_ path: String) throws(JournalError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o750) != 0 && errno != EEXIST {
                throw .system(operation: "mkdir", path: prefix, errno: errno)
            }
        }
    }

    static func size(_ descriptor: Int32, path: String) throws(JournalError) -> (bytes: Int, modified: Double) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .system(operation: "fstat", path: path, errno: errno) }
        return (Int(info.st_size), Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }
}
