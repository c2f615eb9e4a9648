import Glibc
import JSONCore
import Lifecycle
import POSIXSupport
import ScanJournal
import StationWire
import Synchronization

/// The verdict socket of protocol 1: a non-blocking Unix stream server on a thread of its own.
public final class VerdictServer: EventPublisher, Service {
    public let name = "verdict server"
    public let configuration: VerdictServerConfiguration
    private let journal: Journal

    private struct Running {
        let listenDescriptor: Int32
        let wake: ServerWake
        let loop: SharedServerLoop
        let finished: ThreadSignal
    }

    private let running = Mutex<Running?>(nil)

    public init(configuration: VerdictServerConfiguration, journal: Journal) {
        self.configuration = configuration
        self.journal = journal
    }

    deinit {
        stop()
    }

    /// Listens (a stale socket file is replaced, a live one refused, the file made 0660) and serves until `stop`.
    public func start(delegate: any VerdictServerDelegate) throws {
        try running.withLock { running throws(VerdictServerError) in
            guard running == nil else { throw .alreadyStarted }
            let wake = try ServerWake()
            let listenDescriptor: Int32
            if let inherited = configuration.inheritedDescriptor {
                do throws(Errno) {
                    try FileDescriptor.setNonBlocking(inherited)
                } catch {
                    throw .system(operation: "fcntl", path: "the socket systemd passed", errno: error)
                }
                listenDescriptor = inherited
            } else {
                listenDescriptor = try SocketFile.listen(path: configuration.path)
            }
            let finished = ThreadSignal()
            let loop = SharedServerLoop(
                ServerLoop(listenDescriptor: listenDescriptor, wake: wake, configuration: configuration, journal: journal,
                           delegate: delegate),
                wake: wake)
            OSThread.start(name: "verdict-socket") {
                loop.run()
                finished.signal()
            }
            running = Running(listenDescriptor: listenDescriptor, wake: wake, loop: loop, finished: finished)
        }
    }

    /// Call after the journal made `event` durable. `requester` gets it whatever its `watch` says.
    /// The event is written to the clients' sockets on the caller's thread.
    public func publish(_ event: JournaledEvent, requester: ClientID? = nil) {
        running.withLock { $0 }?.loop.publish(event, requester: requester)
    }

    public func refuse(requestID: JSON?, requester: ClientID, _ code: ErrorCode, _ detail: String) {
        running.withLock { $0 }?.loop.refuse(requestID: requestID, requester: requester, code, detail)
    }

    public var clientCount: Int {
        running.withLock { $0 }?.wake.clientCount.load(ordering: .relaxed) ?? 0
    }

    /// Delivers what was published before it (a client that does not read gets up to a second), then closes
    /// every client and the listening socket; removes the socket file unless it was inherited.
    /// It waits for the server thread, so a delegate callback must not call it.
    public func stop() {
        guard let stopped = running.withLock({ running -> Running? in
            defer { running = nil }
            return running
        }) else { return }
        stopped.wake.requestStop()
        stopped.finished.wait()
        close(stopped.listenDescriptor)
        if configuration.inheritedDescriptor == nil {
            unlink(configuration.path)
        }
    }

    /// As a service: serves (once `start`ed) until cancelled, then stops.
    public func run() async {
        await waitForCancellation()
        stop()
    }
}
