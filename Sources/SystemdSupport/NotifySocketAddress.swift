import Glibc
import POSIXSupport

extension UnixSocketAddress {
    /// The datagram address NOTIFY_SOCKET names: a file system path, or an abstract name written with a leading `@`.
    static func notifySocket(_ value: String) throws(SystemCallError) -> UnixSocketAddress {
        do throws(Errno) {
            switch value.first {
            case "/": return try UnixSocketAddress(path: value)
            case "@": return try UnixSocketAddress(abstractName: String(value.dropFirst()))
            default: throw Errno(EAFNOSUPPORT)
            }
        } catch {
            throw SystemCallError("NOTIFY_SOCKET \(value)", errno: error)
        }
    }
}
