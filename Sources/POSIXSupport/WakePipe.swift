import Glibc

/// Wakes a thread blocked in poll(2) from any other thread: it polls `readEnd` for POLLIN beside what it waits on.
/// A socket pair, as Glibc's module offers neither pipe2 nor eventfd; both ends are non-blocking and closed on exec.
public final class WakePipe: Sendable {
    private let reader: OwnedDescriptor
    private let writer: OwnedDescriptor

    public init() throws(Errno) {
        var ends: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else { throw .current }
        reader = OwnedDescriptor(ends[0])
        writer = OwnedDescriptor(ends[1])
    }

    /// The end to poll.
    public var readEnd: Int32 { reader.rawValue }

    /// Makes `readEnd` readable. A full buffer already wakes the reader, so a failed write changes nothing.
    public func wake() {
        var byte: UInt8 = 1
        _ = write(writer.rawValue, &byte, 1)
    }

    /// Takes every byte written so far, so the next poll waits for the next `wake`.
    public func drain() {
        var sink = [UInt8](repeating: 0, count: 256)
        while read(readEnd, &sink, sink.count) > 0 {}
    }
}
