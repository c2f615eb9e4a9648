import Glibc
import POSIXSupport

/// A connected Unix stream socket to the daemon, closed when the last holder lets go,
/// so the reader thread and a sender never race a close against a reused number.
final class SocketDescriptor: Sendable {
    private let owned: OwnedDescriptor

    static func connect(path: String) throws(StationClientError) -> SocketDescriptor {
        do throws(Errno) {
            let address = try UnixSocketAddress(path: path)
            let descriptor = OwnedDescriptor(try UnixSocket.make(.stream))
            try UnixSocket.connect(descriptor.rawValue, to: address)
            return SocketDescriptor(descriptor)
        } catch {
            throw .system(operation: "connect", path: path, errno: error)
        }
    }

    private init(_ owned: consuming OwnedDescriptor) {
        self.owned = owned
    }

    var value: Int32 { owned.rawValue }

    /// Sends all of `bytes` without waiting: commands are small, and a daemon that cannot take one is not reading.
    func sendAll(_ bytes: [UInt8]) throws(StationClientError) {
        var sent = 0
        while sent < bytes.count {
            let result = bytes.withUnsafeBytes { raw in
                Result { () throws(Errno) in try UnixSocket.sendNow(value, UnsafeRawBufferPointer(rebasing: raw[sent...])) }
            }
            switch result {
            case .success(0): throw .daemonNotReading
            case .success(let taken): sent += taken
            case .failure(let error) where error.rawValue == EPIPE || error.rawValue == ECONNRESET: throw .closedByDaemon
            case .failure(let error): throw .system(operation: "send", path: "", errno: error)
            }
        }
    }

    /// Wakes the reader thread's poll(2) for good: what it reads next is the end.
    func shutDown() {
        shutdown(value, Int32(SHUT_RDWR))
    }
}
