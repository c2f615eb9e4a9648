import Glibc

/// The last seq the broker acknowledged, in `<state-dir>/acked-seq` as one decimal line.
///
/// Written to a temporary file, fdatasync'ed and renamed over the old one: a crash leaves
/// the old value or the new one, never a torn one. The bridge writes it at most once a
/// second and on stop, so a crash repeats at most a second of events, and never loses one.
struct AcknowledgedSeqFile: Sendable {
    let path: String
    private let temporaryPath: String

    init(directory: String) {
        path = directory + "/acked-seq"
        temporaryPath = directory + "/acked-seq.new"
    }

    /// 0 when the file does not exist yet; an error for a file that exists but holds no seq: anything but 1 to 20
    /// decimal digits and a line end (a longer file is not cut to its first bytes, nor is "+5" taken).
    func load() throws(UsageError) -> UInt64 {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return 0 }
            throw UsageError("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = read(descriptor, &bytes, bytes.count)
        let text = count > 0 && count < bytes.count ? String(decoding: bytes[0..<count], as: UTF8.self) : ""
        let digits = text.trimmingSuffix("\n")
        guard digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let seq = UInt64(digits) else {
            throw UsageError("\(path) does not hold a seq; remove it to publish the whole journal again")
        }
        return seq
    }

    /// Replaces the file with `seq`; an errno names what failed.
    func save(_ seq: UInt64) -> Int32? {
        let bytes = Array("\(seq)\n".utf8)
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else { return errno }
        let written = write(descriptor, bytes, bytes.count)
        let synced = fdatasync(descriptor)
        close(descriptor)
        guard written == bytes.count, synced == 0 else { return written < 0 || synced != 0 ? errno : EIO }
        guard rename(temporaryPath, path) == 0 else { return errno }
        return nil
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> Substring {
        hasSuffix(suffix) ? dropLast(suffix.count) : self[...]
    }
}
