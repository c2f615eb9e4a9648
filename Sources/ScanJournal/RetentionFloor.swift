import Glibc
import POSIXSupport

/// `<journal>/kept-from`: the first seq of the oldest segment retention must keep, whatever `maxBytes` and `maxAge`
/// say, because it holds a scan still waiting for its verdict (a chip read deferred through an API outage: its proof
/// is in its `scan` line and nowhere else once the daemon restarts). Kept in a file so that the retention a start
/// runs, before anyone could say it again, honours it too. Written whole and renamed: a crash leaves the old floor or
/// the new one.
struct RetentionFloor: Sendable {
    let path: String
    private let temporaryPath: String

    init(directory: String) {
        path = directory + "/kept-from"
        temporaryPath = directory + "/kept-from.new"
    }

    /// Nil when there is no floor (or the file holds no seq, which no journal wrote).
    func load() -> UInt64? {
        guard let descriptor = try? FileDescriptor.openForReadingWithoutWaiting(path) else { return nil }
        let file = OwnedDescriptor(descriptor)
        guard let bytes = try? FileDescriptor.read(file.rawValue, upTo: 32) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        return UInt64(text.hasSuffix("\n") ? String(text.dropLast()) : text)
    }

    /// Sets the floor, or removes it (nil).
    func save(_ firstSeq: UInt64?) throws(Errno) {
        guard let firstSeq else {
            do {
                try FileSystem.remove(path)
            } catch where error.rawValue == ENOENT {}
            return
        }
        do {  // closed before its rename
            let file = OwnedDescriptor(try FileDescriptor.open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode: 0o640))
            try FileDescriptor.writeAll(file.rawValue, Array("\(firstSeq)\n".utf8))
            try FileDescriptor.synchronizeData(file.rawValue)
        }
        try FileSystem.rename(temporaryPath, to: path)
    }
}
