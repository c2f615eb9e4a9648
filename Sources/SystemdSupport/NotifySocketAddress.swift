import Glibc
import POSIXSupport

extension UnixSocketAddress {
    /// The datagram address NOTIFY_SOCKET names: a file system path, or an abstract name written with a leading `@`.
    static func notifySocket(_ value: String) throws(SystemCallError) -> UnixSocketAddress {
        do throws(Errno) {
            // The first byte, not the first Character: "/" and a combining mark after it are one Character.
            switch value.utf8.first {
            case UInt8(ascii: "/"): return try UnixSocketAddress(path: value)
            case UInt8(ascii: "@"): return try UnixSocketAddress(abstractName: String(value.unicodeScalars.dropFirst()))
            default: throw Errno(EAFNOSUPPORT)
            }
        } catch {
            throw SystemCallError("NOTIFY_SOCKET \(value)", errno: error)
        }
    }
}
