import Glibc
import JSONCore
import POSIXSupport
import ScanJournal
import StationWire
import Synchronization

/// The server's state under one lock, taken in turn by the server thread and by the threads that publish.
///
/// A publisher writes an event to the clients' sockets itself: the verdict reaches a subscriber with no hand-off to
/// the server thread, which only polls, reads commands, accepts, replays, and sends what a socket did not take.
final class SharedServerLoop: Sendable {
    private let loop: Mutex<ServerLoop>
    private let wake: ServerWake

    init(_ loop: sending ServerLoop, wake: ServerWake) {
        self.loop = Mutex(loop)
        self.wake = wake
    }

    /// The server thread's body: turns of poll and service until `wake` says stop, then the last flush.
    func run() {
        var descriptors: [pollfd] = []
        var order: [Int32] = []
        while true {
            let deadline = loop.withLock { $0.prepareTurn(&descriptors, &order) }
            guard (try? Poll.wait(&descriptors, until: deadline)) != nil else { break }
            wake.drain()
            if wake.isStopping { break }
            loop.withLock { $0.serveTurn(descriptors, order) }
        }
        loop.withLock { $0.finish() }
    }

    func publish(_ event: JournaledEvent, requester: ClientID?) {
        let pollSetChanged = loop.withLock { loop in
            loop.deliver(event, requester: requester)
            return loop.pollSetChanged
        }
        if pollSetChanged { wake.wake() }
    }

    func refuse(requestID: JSON?, requester: ClientID, _ code: ErrorCode, _ detail: String) {
        let pollSetChanged = loop.withLock { loop in
            loop.refuse(requestID: requestID, requester: requester, code, detail)
            return loop.pollSetChanged
        }
        if pollSetChanged { wake.wake() }
    }

    func answer(_ message: JSON, to requester: ClientID) {
        let pollSetChanged = loop.withLock { loop in
            loop.answer(message, to: requester)
            return loop.pollSetChanged
        }
        if pollSetChanged { wake.wake() }
    }
}
