import Glibc

/// A connected Unix stream socket to the daemon, closed when the last holder lets go,
/// so the reader thread and a sender never race a close against a reused number.
final class SocketDescriptor: Sendable {
    let value: Int32

    static func connect(path: String) throws(StationClientError) -> SocketDescriptor {
        let bytes = Array(path.utf8)
        var address = sockaddr_un()
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw .system(operation: "connect", path: path, errno: ENAMETOOLONG)
        }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .system(operation: "socket", path: path, errno: errno) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(descriptor)
            throw .system(operation: "connect", path: path, errno: code)
        }
        return SocketDescriptor(descriptor)
    }

    private init(_ value: Int32) {
        self.value = value
    }

    deinit {
        close(value)
    }

    /// Sends all of `bytes` without waiting: commands are small, and a daemon that cannot take one is not reading.
    func sendAll(_ bytes: [UInt8]) throws(StationClientError) {
        var sent = 0
        while sent < bytes.count {
            let result = bytes.withUnsafeBytes { raw in
                send(value, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            if result < 0 {
                switch errno {
                case EINTR: continue
                case EAGAIN: throw .daemonNotReading
                case EPIPE, ECONNRESET: throw .closedByDaemon
                case let code: throw .system(operation: "send", path: "", errno: code)
                }
            }
            sent += result
        }
    }

    /// Wakes the reader thread's poll(2) for good: what it reads next is the end.
    func shutDown() {
        shutdown(value, Int32(SHUT_RDWR))
    }
}
