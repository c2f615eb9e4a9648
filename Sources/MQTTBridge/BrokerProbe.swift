import Glibc
import POSIXSupport

/// Whether a broker accepts TCP again, for a link that moved to a later `--url` and goes back to the first by itself.
/// Only a TCP connection, closed at once: an MQTT session there (the same client id) would, on a cluster, throw the
/// link's own session off.
enum BrokerProbe {
    /// True when `address` accepts a TCP connection within `timeout`; blocks for name resolution and the connection,
    /// so it runs on a thread of its own.
    static func answers(_ address: BrokerAddress, within timeout: Duration) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(address.host, String(address.port), &hints, &found) == 0, let first = found else { return false }
        defer { freeaddrinfo(first) }
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let made = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                              info.pointee.ai_protocol)
            guard made >= 0 else { continue }
            let descriptor = OwnedDescriptor(made)
            if connect(descriptor.rawValue, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return true }
            guard errno == EINPROGRESS else { continue }
            guard let ready = try? Poll.wait(on: descriptor.rawValue, for: Int16(POLLOUT), until: .now + timeout), ready != 0 else { continue }
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            if getsockopt(descriptor.rawValue, SOL_SOCKET, SO_ERROR, &failure, &length) == 0, failure == 0 { return true }
        }
        return false
    }
}
