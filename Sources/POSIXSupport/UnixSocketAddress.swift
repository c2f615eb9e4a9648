import Glibc

/// The address of an AF_UNIX socket: a file system path, or an abstract name (Linux).
public struct UnixSocketAddress: Sendable, Hashable {
    /// `sun_path`'s size: a path may use all but the terminating NUL.
    public static let pathCapacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

    /// The bytes of `sun_path` in use; an abstract name starts with NUL and has no terminator.
    private let pathBytes: [UInt8]

    /// A path in the file system; ENAMETOOLONG when it does not fit, EINVAL when it is empty.
    public init(path: String) throws(Errno) {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty else { throw Errno(EINVAL) }
        guard bytes.count < Self.pathCapacity else { throw Errno(ENAMETOOLONG) }
        pathBytes = bytes + [0]
    }

    /// A name in the abstract namespace (written `@name` by systemd), not in the file system.
    public init(abstractName: String) throws(Errno) {
        let bytes = [0] + Array(abstractName.utf8)
        guard bytes.count > 1 else { throw Errno(EINVAL) }
        guard bytes.count <= Self.pathCapacity else { throw Errno(ENAMETOOLONG) }
        pathBytes = bytes
    }

    /// Calls `body` with the address and its exact length: an abstract name's length must not count padding.
    public func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Result) rethrows -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            path.copyBytes(from: pathBytes)
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + pathBytes.count)
        return try withUnsafePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, length) }
        }
    }
}
