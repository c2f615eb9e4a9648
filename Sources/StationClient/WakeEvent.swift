import Glibc
import POSIXSupport

/// A socket pair used as a self-pipe (glibc's module lacks pipe2 and eventfd): a thread blocked in poll(2) on the socket also wakes when another task signals it.
final class WakeEvent: Sendable {
    /// The end to poll.
    let descriptor: Int32
    private let writeEnd: Int32

    init() throws(StationClientError) {
        var ends: [Int32] = [-1, -1]
        let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, flags, 0, &ends) == 0 else { throw .system(operation: "socketpair", path: "", errno: .current) }
        descriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(descriptor)
        close(writeEnd)
    }

    /// A full buffer already wakes the reader, so a failed write changes nothing.
    func signal() {
        var one: UInt8 = 1
        _ = write(writeEnd, &one, 1)
    }

    func drain() {
        var sink = [UInt8](repeating: 0, count: 64)
        while read(descriptor, &sink, sink.count) > 0 {}
    }
}
