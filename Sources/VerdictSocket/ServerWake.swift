import POSIXSupport
import Synchronization

/// What the server thread shares with the others: the wake pipe its poll watches (a publisher left output queued for
/// a client, closed one, or the server is stopping; drained at each turn), the stop request, and the client count.
final class ServerWake: Sendable {
    private let pipe: WakePipe
    let clientCount = Atomic<Int>(0)
    private let stopRequested = Atomic<Bool>(false)

    init() throws(VerdictServerError) {
        do throws(Errno) {
            pipe = try WakePipe()
        } catch {
            throw .system(operation: "socketpair", path: "the wake pipe", errno: error)
        }
    }

    /// The end the server thread polls.
    var descriptor: Int32 { pipe.readEnd }

    var isStopping: Bool { stopRequested.load(ordering: .acquiring) }

    func requestStop() {
        stopRequested.store(true, ordering: .releasing)
        wake()
    }

    func wake() {
        pipe.wake()
    }

    func drain() {
        pipe.drain()
    }
}
