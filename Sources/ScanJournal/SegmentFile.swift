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

/// The journal's file calls: POSIXSupport's, each failure named with its operation and path as a `JournalError`.
enum FileCalls {
    static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o640) throws(JournalError) -> Int32 {
        try naming("open", path) { () throws(Errno) in try FileDescriptor.open(path, flags, mode: mode) }
    }

    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], path: String) throws(JournalError) {
        try naming("write", path) { () throws(Errno) in try FileDescriptor.writeAll(descriptor, bytes) }
    }

    /// Up to `count` bytes at `offset`: no more than the file holds, so a batch's size costs memory only
    /// as far as there are bytes to read.
    static func readAt(_ descriptor: Int32, offset: Int, count: Int, path: String) throws(JournalError) -> [UInt8] {
        let wanted = max(0, min(count, try size(descriptor, path: path).bytes - offset))
        return try naming("read", path) { () throws(Errno) in try FileDescriptor.read(descriptor, at: offset, upTo: wanted) }
    }

    static func syncData(_ descriptor: Int32, path: String) throws(JournalError) {
        try naming("fdatasync", path) { () throws(Errno) in try FileDescriptor.synchronizeData(descriptor) }
    }

    static func truncate(_ descriptor: Int32, to size: Int, path: String) throws(JournalError) {
        try naming("ftruncate", path) { () throws(Errno) in try FileDescriptor.truncate(descriptor, to: size) }
    }

    /// Makes a new or removed file name durable, not only its contents.
    static func syncDirectory(_ path: String) throws(JournalError) {
        let descriptor = try open(path, O_RDONLY | O_DIRECTORY)
        defer { FileDescriptor.close(descriptor) }
        try naming("fsync", path) { () throws(Errno) in try FileDescriptor.synchronize(descriptor) }
    }

    /// Removes a segment retention dropped; one already gone is as good.
    static func remove(_ path: String) throws(JournalError) {
        do throws(Errno) {
            try FileSystem.remove(path)
        } catch where error == Errno(ENOENT) {
            return
        } catch {
            throw .system(operation: "unlink", path: path, errno: error)
        }
    }

    /// Renames a segment that does not make sense out of the journal (`NAME.aside-SECONDS`), keeping it
    /// for a person to look at; returns the note that says so.
    static func setAside(_ path: String, because reason: String, at seconds: Double) throws(JournalError) -> String {
        var asidePath = path + ".aside-\(Int(seconds))"
        var attempt = 1
        while FileSystem.exists(asidePath) {
            attempt += 1
            asidePath = path + ".aside-\(Int(seconds))-\(attempt)"
        }
        try naming("rename", path) { () throws(Errno) in try FileSystem.rename(path, to: asidePath) }
        return "journal: set aside \(path) as \(asidePath): \(reason)"
    }

    /// `mkdir -p`: the journal's directory and any missing parent.
    static func makeDirectories(_ path: String) throws(JournalError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            do throws(Errno) {
                try FileSystem.makeDirectory(prefix, mode: 0o750)
            } catch where error == Errno(EEXIST) {
                continue
            } catch {
                throw .system(operation: "mkdir", path: prefix, errno: error)
            }
        }
    }

    static func size(_ descriptor: Int32, path: String) throws(JournalError) -> (bytes: Int, modified: Double) {
        let info = try naming("fstat", path) { () throws(Errno) in try FileDescriptor.status(descriptor) }
        return (Int(info.st_size), Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }

    /// `call`'s errno as the journal's error, with what was attempted on which path.
    private static func naming<Value>(_ operation: String, _ path: String, _ call: () throws(Errno) -> Value) throws(JournalError) -> Value {
        do throws(Errno) {
            return try call()
        } catch {
            throw .system(operation: operation, path: path, errno: error)
        }
    }
}
