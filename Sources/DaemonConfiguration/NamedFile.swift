import Glibc
import POSIXSupport

/// A file the configuration names (the token file, the CA bundle), read as the daemon reads them all: opened without
/// blocking, so that a FIFO named by mistake holds up neither the daemon nor `--check-config` (which `systemctl reload`
/// runs), and read only when it is a regular file of at most the caller's limit.
public enum NamedFile {
    /// What tells a changed file from the one read last.
    public struct Identity: Sendable, Equatable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modifiedSeconds: Int
        let modifiedNanoseconds: Int
    }

    enum Reading {
        /// The file is the one read last (`read(_:what:limit:unless:)` did not read it again).
        case unchanged
        case bytes([UInt8], Identity)
        /// Why it was not read, in words that name the file; `identity` is nil when it could not be opened.
        case problem(String, Identity?)
    }

    /// Reads the file at `path`, unless it still has the identity `known`; `what` names it in a problem ("token file").
    static func read(_ path: String, what: String, limit: Int, unless known: Identity? = nil) -> Reading {
        let file: OwnedDescriptor
        let info: stat
        do {
            file = OwnedDescriptor(try FileDescriptor.openForReadingWithoutWaiting(path))
        } catch {
            return .problem("cannot read the \(what) \(path): \(error)", nil)
        }
        do {
            info = try FileDescriptor.status(file.rawValue)
        } catch {
            return .problem("cannot read the \(what) \(path): \(error)", nil)
        }
        let identity = Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                                modifiedSeconds: info.st_mtim.tv_sec, modifiedNanoseconds: info.st_mtim.tv_nsec)
        if identity == known { return .unchanged }
        guard info.st_mode & S_IFMT == S_IFREG else {
            return .problem("the \(what) \(path) is not a regular file", identity)
        }
        let bytes: [UInt8]
        do {
            bytes = try FileDescriptor.read(file.rawValue, upTo: limit + 1)
        } catch {
            return .problem("cannot read the \(what) \(path): \(error)", identity)
        }
        guard bytes.count <= limit else {
            return .problem("the \(what) \(path) is larger than \(limit >> 10) KiB", identity)
        }
        return .bytes(bytes, identity)
    }
}
