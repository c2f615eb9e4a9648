import Glibc

/// Thin calls for AF_UNIX sockets; no policy (file modes, stale files) lives here.
public enum UnixSocket {
    public enum Kind: Sendable {
        case stream, datagram

        var type: Int32 {
            switch self {
            case .stream: Int32(SOCK_STREAM.rawValue)
            case .datagram: Int32(SOCK_DGRAM.rawValue)
            }
        }
    }

    /// A new socket, closed on exec; non-blocking when asked.
    public static func make(_ kind: Kind, nonBlocking: Bool = false) throws(Errno) -> Int32 {
        let flags = Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        let descriptor = socket(AF_UNIX, kind.type | flags, 0)
        guard descriptor >= 0 else { throw .current }
        return descriptor
    }

    public static func connect(_ descriptor: Int32, to address: UnixSocketAddress) throws(Errno) {
        let result = address.withSocketAddress { Glibc.connect(descriptor, $0, $1) }
        guard result == 0 else { throw .current }
    }

    public static func bind(_ descriptor: Int32, to address: UnixSocketAddress) throws(Errno) {
        let result = address.withSocketAddress { Glibc.bind(descriptor, $0, $1) }
        guard result == 0 else { throw .current }
    }

    public static func listen(_ descriptor: Int32, backlog: Int32) throws(Errno) {
        guard Glibc.listen(descriptor, backlog) == 0 else { throw .current }
    }

    /// Sends without blocking and without SIGPIPE: the bytes taken, 0 when the kernel buffer is full.
    public static func sendNow(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int {
        while true {
            let result = Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            if result >= 0 { return result }
            switch Glibc.errno {
            case EINTR: continue
            case EAGAIN: return 0
            default: throw .current
            }
        }
    }

    /// Sends one datagram to `address`, without SIGPIPE.
    public static func send(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, to address: UnixSocketAddress) throws(Errno) {
        let sent = address.withSocketAddress { sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0, $1) }
        guard sent >= 0 else { throw .current }
    }
}
