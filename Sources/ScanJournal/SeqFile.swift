import Glibc
import POSIXSupport

/// A file of the journal's folder that holds one seq, as text, and is replaced whole: written to a temporary file,
/// fdatasync'ed, renamed into place and the folder synced, so that a crash leaves the old seq or the new one.
public struct SeqFile: Sendable {
    public let path: String
    private let temporaryPath: String
    private let directory: String
    private let mode: mode_t

    /// `name` in `directory`, made with `mode` when first saved.
    public init(directory: String, name: String, mode: mode_t) {
        self.directory = directory
        self.mode = mode
        path = directory + "/" + name
        temporaryPath = path + ".new"
    }

    /// The seq it holds; nil when there is no file (or it holds no seq, which no daemon wrote).
    public func load() -> UInt64? {
        guard let descriptor = try? FileDescriptor.openForReadingWithoutWaiting(path) else { return nil }
        let file = OwnedDescriptor(descriptor)
        guard let bytes = try? FileDescriptor.read(file.rawValue, upTo: 32) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        return UInt64(text.hasSuffix("\n") ? text.dropLast() : text[...])
    }

    public func save(_ seq: UInt64) throws(Errno) {
        do {  // closed before its rename
            let file = OwnedDescriptor(try FileDescriptor.open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode: mode))
            try FileDescriptor.writeAll(file.rawValue, Array("\(seq)\n".utf8))
            try FileDescriptor.synchronizeData(file.rawValue)
        }
        try FileSystem.rename(temporaryPath, to: path)
        let folder = OwnedDescriptor(try FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY))
        try FileDescriptor.synchronize(folder.rawValue)
    }

    /// No file any more; none there already is no failure.
    public func remove() throws(Errno) {
        do {
            try FileSystem.remove(path)
        } catch where error.rawValue == ENOENT {}
    }
}
