import Glibc
import POSIXSupport

/// `<journal>/presenting`: the seq of the `deferred` verdict whose proof is being presented, made durable before its
/// call starts and removed once its late verdict is journaled (or it stays deferred). A start that finds it, with no
/// late verdict naming that seq in the journal, ends that scan as a late `failure`: its proof may have reached the API,
/// and is never sent twice. A file of the daemon's own rather than a journal event: protocol 1's clients would be sent
/// an event type that is no news to them.
struct PresentingMark: Sendable {
    let path: String
    private let temporaryPath: String
    private let directory: String

    init(journalDirectory: String) {
        directory = journalDirectory
        path = journalDirectory + "/presenting"
        temporaryPath = journalDirectory + "/presenting.new"
    }

    /// The seq it names; nil when there is none (or it holds no seq, which no daemon wrote).
    func load() -> UInt64? {
        guard let descriptor = try? FileDescriptor.openForReadingWithoutWaiting(path) else { return nil }
        let file = OwnedDescriptor(descriptor)
        guard let bytes = try? FileDescriptor.read(file.rawValue, upTo: 32) else { return nil }
        return UInt64(String(decoding: bytes, as: UTF8.self).trimmingSuffix("\n"))
    }

    /// Written whole, fdatasync'ed, renamed into place and the folder synced: a crash leaves no mark or this one.
    func save(_ seq: UInt64) throws(Errno) {
        do {  // closed before its rename
            let file = OwnedDescriptor(try FileDescriptor.open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode: 0o600))
            try FileDescriptor.writeAll(file.rawValue, Array("\(seq)\n".utf8))
            try FileDescriptor.synchronizeData(file.rawValue)
        }
        try FileSystem.rename(temporaryPath, to: path)
        let folder = OwnedDescriptor(try FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY))
        try FileDescriptor.synchronize(folder.rawValue)
    }

    func clear() {
        try? FileSystem.remove(path)
    }
}

private extension String {
    func trimmingSuffix(_ suffix: String) -> Substring {
        hasSuffix(suffix) ? dropLast(suffix.count) : self[...]
    }
}
