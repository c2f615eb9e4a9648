import Glibc
import POSIXSupport
import Synchronization

/// Wakes the server thread's poll when its poll set must change: a publisher left output queued for a client, closed
/// one, or the server is stopping. A self-pipe, drained at each turn.
final class ServerWake: Sendable {
    let descriptor: Int32
    private let writer: Int32
    let clientCount = Atomic<Int>(0)
    private let stopRequested = Atomic<Bool>(false)

    init() throws(VerdictServerError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .system(operation: "pipe", path: "", errno: .current) }
        descriptor = ends[0]
        writer = ends[1]
        do {
            for end in ends {
                try FileDescriptor.setNonBlocking(end)
                try FileDescriptor.setCloseOnExec(end)
            }
        } catch {
            close(ends[0])
            close(ends[1])
            throw .system(operation: "fcntl", path: "the wake pipe", errno: error)
        }
    }

    deinit {
        close(descriptor)
        close(writer)
    }

    var isStopping: Bool { stopRequested.load(ordering: .acquiring) }

    func requestStop() {
        stopRequested.store(true, ordering: .releasing)
        wake()
    }

    func wake() {
        var one: UInt8 = 1
        _ = write(writer, &one, 1)
    }

    func drain() {
        var drained = [UInt8](repeating: 0, count: 256)
        while read(descriptor, &drained, drained.count) == drained.count {}
    }
}
