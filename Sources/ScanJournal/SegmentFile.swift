import Glibc
import POSIXSupport

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

    /// The seqs line `line` (from 0) of a segment can hold: every append writes the next seq on the next
    /// line, so a seq can lag its line (garbage lines between) but never run ahead of it.
    static func plausibleSeqs(firstSeq: UInt64, line: Int) -> ClosedRange<UInt64> {
        firstSeq...max(firstSeq, min(firstSeq + UInt64(line), Journal.seqs.upperBound))
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
        guard descriptor >= 0 else { throw .system(operation: "open", path: path, errno: .current) }
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
                throw .system(operation: "write", path: path, errno: .current)
            }
            written += result
        }
    }

    /// Up to `count` bytes at `offset`: no more than the file holds, so a batch's size costs memory only
    /// as far as there are bytes to read.
    static func readAt(_ descriptor: Int32, offset: Int, count: Int, path: String) throws(JournalError) -> [UInt8] {
        let wanted = max(0, min(count, try size(descriptor, path: path).bytes - offset))
        var failure: JournalError?
        let bytes = [UInt8](unsafeUninitializedCapacity: wanted) { buffer, filled in
            while filled < wanted {
                let result = pread(descriptor, buffer.baseAddress! + filled, wanted - filled, off_t(offset + filled))
                if result < 0 {
                    if errno == EINTR { continue }
                    failure = .system(operation: "read", path: path, errno: .current)
                    return
                }
                if result == 0 { return }
                filled += result
            }
        }
        if let failure { throw failure }
        return bytes
    }

    static func syncData(_ descriptor: Int32, path: String) throws(JournalError) {
        guard fdatasync(descriptor) == 0 else { throw .system(operation: "fdatasync", path: path, errno: .current) }
    }

    static func truncate(_ descriptor: Int32, to size: Int, path: String) throws(JournalError) {
        guard ftruncate(descriptor, off_t(size)) == 0 else {
            throw .system(operation: "ftruncate", path: path, errno: .current)
        }
    }

    /// Makes a new or removed file name durable, not only its contents.
    static func syncDirectory(_ path: String) throws(JournalError) {
        let descriptor = try open(path, O_RDONLY | O_DIRECTORY)
        defer { Glibc.close(descriptor) }
        guard fsync(descriptor) == 0 else { throw .system(operation: "fsync", path: path, errno: .current) }
    }

    /// Renames a segment that does not make sense out of the journal (`NAME.aside-SECONDS`), keeping it
    /// for a person to look at; returns the note that says so.
    static func setAside(_ path: String, because reason: String) throws(JournalError) -> String {
        var asidePath = path + ".aside-\(Int(Timestamp.now().seconds))"
        var attempt = 1
        while access(asidePath, F_OK) == 0 {
            attempt += 1
            asidePath = path + ".aside-\(Int(Timestamp.now().seconds))-\(attempt)"
        }
        guard rename(path, asidePath) == 0 else { throw .system(operation: "rename", path: path, errno: .current) }
        return "journal: set aside \(path) as \(asidePath): \(reason)"
    }

    /// `mkdir -p`: the journal's directory and any missing parent.
    static func makeDirectories(_ path: String) throws(JournalError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o750) != 0 && errno != EEXIST {
                throw .system(operation: "mkdir", path: prefix, errno: .current)
            }
        }
    }

    static func size(_ descriptor: Int32, path: String) throws(JournalError) -> (bytes: Int, modified: Double) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .system(operation: "fstat", path: path, errno: .current) }
        return (Int(info.st_size), Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }
}
