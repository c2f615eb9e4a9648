import Glibc
import POSIXSupport

/// A bound, listening TCP socket for the HTTP server; errno kept as the kernel gave it.
public struct ListeningSocket: Sendable {
    public let descriptor: Int32
    /// The port actually bound (the one asked for, or the kernel's pick for port 0).
    public let port: UInt16

    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let operation: String
        public let errno: Errno
        public var description: String { "\(operation): \(errno)" }
    }

    /// Binds `address` (IPv4 or IPv6, numeric) on `port` and listens.
    public static func bind(_ address: ListenAddress) throws(Failure) -> ListeningSocket {
        let family = address.isIPv6 ? AF_INET6 : AF_INET
        let made = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard made >= 0 else { throw Failure(operation: "socket", errno: .current) }
        let owned = OwnedDescriptor(made)
        let descriptor = owned.rawValue
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound: Int32
        if address.isIPv6 {
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = address.port.bigEndian
            inet_pton(AF_INET6, address.host, &socketAddress.sin6_addr)
            bound = Self.bind(descriptor, to: socketAddress)
        } else {
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = address.port.bigEndian
            inet_pton(AF_INET, address.host, &socketAddress.sin_addr)
            bound = Self.bind(descriptor, to: socketAddress)
        }
        guard bound == 0 else {
            throw Failure(operation: "bind \(address)", errno: .current)
        }
        guard listen(descriptor, 128) == 0 else {
            throw Failure(operation: "listen", errno: .current)
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else {
            throw Failure(operation: "getsockname", errno: .current)
        }
        let port = withUnsafePointer(to: &storage) { pointer -> UInt16 in
            if address.isIPv6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        return ListeningSocket(descriptor: owned.release(), port: port)
    }

    /// bind(2) to an IPv4 or IPv6 address.
    private static func bind<SocketAddress>(_ descriptor: Int32, to address: SocketAddress) -> Int32 {
        withUnsafePointer(to: address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<SocketAddress>.size)) }
        }
    }
}
