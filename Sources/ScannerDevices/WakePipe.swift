import Glibc
import POSIXSupport

/// Wakes a thread blocked in poll(2) when the source is stopped, so a stop never waits for a timeout.
/// A socket pair, as Glibc's module does not offer pipe2.
final class WakePipe: Sendable {
    let readEnd: Int32
    private let writeEnd: Int32

    init() throws(SystemCallError) {
        var ends: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else { throw SystemCallError("socketpair") }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }
}
