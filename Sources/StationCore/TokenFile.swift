import Glibc
import POSIXSupport

/// The token file's rule, in one place for the daemon (`TokenStore`) and `--check-config`: a regular file of at most
/// `maximumBytes` of UTF-8 text, whose trimmed text is the token, or none when it is empty. It is opened without blocking, so that a FIFO named
/// by mistake holds up neither the daemon nor a check (`systemctl reload` runs one).
enum TokenFile {
    /// A bearer token is a few hundred bytes: a file named by mistake is never read whole.
    static let maximumBytes = 65_536

    /// What tells a changed file from the one read last.
    struct Identity: Equatable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modifiedSeconds: Int
        let modifiedNanoseconds: Int
    }

    enum Reading {
        /// The file is the one read last (`read(_:unless:)` did not read it again).
        case unchanged
        case token(String, Identity)
        /// No token: what a fresh install has (systemd's `LoadCredential=` needs the file to exist).
        case empty(Identity)
        /// Why there is no token, in words that name the path; `identity` is nil when the file could not be opened.
        case problem(String, Identity?)
    }

    /// Reads the file at `path`, unless it still has the identity `known`.
    static func read(_ path: String, unless known: Identity? = nil) -> Reading {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        defer { if descriptor >= 0 { close(descriptor) } }
        var info = stat()
        guard descriptor >= 0, fstat(descriptor, &info) == 0 else {
            return .problem("cannot read the token file \(path): \(Errno.current)", nil)
        }
        let identity = Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                                modifiedSeconds: info.st_mtim.tv_sec, modifiedNanoseconds: info.st_mtim.tv_nsec)
        if identity == known { return .unchanged }
        guard info.st_mode & S_IFMT == S_IFREG else {
            return .problem("the token file \(path) is not a regular file", identity)
        }
        let bytes: [UInt8]
        do {
            bytes = try FileDescriptor.read(descriptor, upTo: maximumBytes + 1)
        } catch {
            return .problem("cannot read the token file \(path): \(error)", identity)
        }
        guard bytes.count <= maximumBytes else {
            return .problem("the token file \(path) is larger than \(maximumBytes >> 10) KiB", identity)
        }
        let content = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
        guard let text = String(validating: content, as: UTF8.self) else {
            return .problem("the token file \(path) is not UTF-8 text", identity)
        }
        let token = text.trimmingWhitespace()
        return token.isEmpty ? .empty(identity) : .token(token, identity)
    }
}
