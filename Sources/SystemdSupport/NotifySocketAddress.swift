#if canImport(Glibc)
import Glibc
#endif

/// The datagram address named by NOTIFY_SOCKET: a file system path, or an abstract name written with a leading `@`.
struct NotifySocketAddress: Sendable, Equatable {
    /// The bytes of `sun_path` that are used; an abstract name starts with NUL and has no terminator.
    let pathBytes: [UInt8]

    init(_ value: String) throws(SystemdError) {
        var bytes = Array(value.utf8)
        switch bytes.first {
        case UInt8(ascii: "/"):
            bytes.append(0)
        case UInt8(ascii: "@"):
            bytes[0] = 0
        default:
            throw SystemdError(operation: "NOTIFY_SOCKET \(value)", errno: EAFNOSUPPORT)
        }
        guard bytes.count > 1, bytes.count <= MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            throw SystemdError(operation: "NOTIFY_SOCKET \(value)", errno: ENAMETOOLONG)
        }
        pathBytes = bytes
    }

    /// Calls `body` with the address and its exact length: an abstract name's length must not count padding.
    func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            path.copyBytes(from: pathBytes)
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + pathBytes.count)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
