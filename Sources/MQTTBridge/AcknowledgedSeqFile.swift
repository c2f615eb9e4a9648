import Glibc
import POSIXSupport

/// The last seq the broker acknowledged, in `<state-dir>/acked-seq` as one decimal line.
///
/// Written to a temporary file, fdatasync'ed and renamed over the old one: a crash leaves
/// the old value or the new one, never a torn one. The bridge writes it at most once a
/// second and on stop, so a crash repeats at most a second of events, and never loses one.
struct AcknowledgedSeqFile: Sendable {
    /// The highest seq the file may hold: the protocol's numbers are JSON integers, at most 2^63 - 1, so a larger one
    /// was never written by the bridge, and the next seq after it must still be a number.
    static let largestSeq = UInt64(Int64.max)

    let path: String
    private let temporaryPath: String

    init(directory: String) {
        path = directory + "/acked-seq"
        temporaryPath = directory + "/acked-seq.new"
    }

    /// 0 when the file does not exist yet; an error for a file that exists but holds no seq: anything but 1 to 19
    /// decimal digits up to `largestSeq` and an optional line end (a longer file is not cut to its first bytes, nor is "+5"
    /// taken). Opened without waiting, so a FIFO put there by mistake is named instead of holding the start.
    func load() throws(UsageError) -> UInt64 {
        let file: OwnedDescriptor
        do {
            file = OwnedDescriptor(try FileDescriptor.openForReadingWithoutWaiting(path))
        } catch {
            if error.rawValue == ENOENT { return 0 }
            throw UsageError("cannot read \(path): \(error)")
        }
        guard let info = try? FileDescriptor.status(file.rawValue), info.st_mode & S_IFMT == S_IFREG else {
            throw UsageError("\(path) is not a regular file; remove it to publish the whole journal again")
        }
        let bytes: [UInt8]
        do {
            bytes = try FileDescriptor.read(file.rawValue, upTo: 32)
        } catch {
            throw UsageError("cannot read \(path): \(error)")
        }
        let text = bytes.count < 32 ? String(decoding: bytes, as: UTF8.self) : ""
        let digits = text.hasSuffix("\n") ? text.dropLast() : text[...]
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let seq = UInt64(digits), seq <= Self.largestSeq else {
            throw UsageError("\(path) does not hold a seq from 0 to \(Self.largestSeq); remove it to publish the whole journal again")
        }
        return seq
    }

    /// Replaces the file with `seq`; the errno of what failed.
    func save(_ seq: UInt64) -> Errno? {
        let bytes = Array("\(seq)\n".utf8)
        do throws(Errno) {
            do {  // the temporary file is closed before its rename
                let file = OwnedDescriptor(try FileDescriptor.open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode: 0o600))
                try FileDescriptor.writeAll(file.rawValue, bytes)
                try FileDescriptor.synchronizeData(file.rawValue)
            }
            try FileSystem.rename(temporaryPath, to: path)
            return nil
        } catch {
            return error
        }
    }
}
