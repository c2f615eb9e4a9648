import Glibc
import JSONCore
import POSIXSupport
import ScanJournal
import StationWire
import Synchronization

/// What other threads hand to the server thread: events to publish and the order to stop.
/// A self-pipe wakes the thread's poll.
final class ServerMailbox: Sendable {
    /// One piece of work for the server thread, in the order it was posted.
    enum Letter {
        case event(JournaledEvent, requester: ClientID?)
        case refusal(requestID: JSON?, requester: ClientID, code: ErrorCode, detail: String)
    }

    struct Letters {
        var posted: [Letter] = []
        var stopping = false
    }

    let wakeDescriptor: Int32
    private let wakeWriter: Int32
    let clientCount = Atomic<Int>(0)
    private let letters = Mutex(Letters())

    init() throws(VerdictServerError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .system(operation: "pipe", path: "", errno: .current) }
        wakeDescriptor = ends[0]
        wakeWriter = ends[1]
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
        close(wakeDescriptor)
        close(wakeWriter)
    }

    func post(_ letter: Letter) {
        let wasEmpty = letters.withLock { letters in
            letters.posted.append(letter)
            return letters.posted.count == 1
        }
        if wasEmpty { wake() }
    }

    func postStop() {
        letters.withLock { $0.stopping = true }
        wake()
    }

    func take() -> Letters {
        var drained = [UInt8](repeating: 0, count: 256)
        while read(wakeDescriptor, &drained, drained.count) == drained.count {}
        return letters.withLock { letters in
            let taken = letters
            letters.posted.removeAll(keepingCapacity: true)
            return taken
        }
    }

    private func wake() {
        var one: UInt8 = 1
        _ = write(wakeWriter, &one, 1)
    }
}
