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

    /// The socket claimed, not served yet.
    private struct Listening {
        let descriptor: Int32
        let wake: ServerWake
    }

    private struct Running {
        let listening: Listening
        let loop: SharedServerLoop
        let finished: ThreadSignal
    }

    private enum State {
        case idle
        case listening(Listening)
        case running(Running)
    }

    private let state = Mutex<State>(.idle)

    public init(configuration: VerdictServerConfiguration) {
        self.configuration = configuration
    }

    deinit {
        stop()
    }

    /// Claims the socket without serving it yet: a stale socket file is replaced, a live one refused, the file made
    /// 0660. A daemon claims it before it opens its journal or starts any thread, so that a second daemon refused here
    /// has touched neither the first one's journal nor anything that a thread of its own could still be using when it
    /// exits (an API connection opening in the background, whose TLS library `exit` tears down).
    public func listen() throws(VerdictServerError) {
        try state.withLock { state throws(VerdictServerError) in
            guard case .idle = state else { throw .alreadyStarted }
            state = .listening(try claimSocket())
        }
    }

    private func claimSocket() throws(VerdictServerError) -> Listening {
        let wake = try ServerWake()
        guard let inherited = configuration.inheritedDescriptor else {
            return Listening(descriptor: try SocketFile.listen(path: configuration.path), wake: wake)
        }
        do throws(Errno) {
            try FileDescriptor.setNonBlocking(inherited)
        } catch {
            throw .system(operation: "fcntl", path: "the socket systemd passed", errno: error)
        }
        return Listening(descriptor: inherited, wake: wake)
    }

    /// Serves the socket claimed by `listen` (claiming it now when it was not) until `stop`, on a thread of its own.
    public func start(journal: Journal, delegate: any VerdictServerDelegate) throws(VerdictServerError) {
        try state.withLock { state throws(VerdictServerError) in
            let listening: Listening
            switch state {
            case .idle: listening = try claimSocket()
            case .listening(let claimed): listening = claimed
            case .running: throw .alreadyStarted
            }
            let finished = ThreadSignal()
            let loop = SharedServerLoop(
                ServerLoop(listenDescriptor: listening.descriptor, wake: listening.wake, configuration: configuration,
                           journal: journal, delegate: delegate),
                wake: listening.wake)
            OSThread.start(name: "verdict-socket") {
                loop.run()
                finished.signal()
            }
            state = .running(Running(listening: listening, loop: loop, finished: finished))
        }
    }

    private var running: Running? {
        state.withLock { state in
            guard case .running(let running) = state else { return nil }
            return running
        }
    }

    /// Call after the journal made `event` durable. `requester` gets it whatever its `watch` says.
    /// The event is written to the clients' sockets on the caller's thread.
    public func publish(_ event: JournaledEvent, requester: ClientID? = nil) {
        running?.loop.publish(event, requester: requester)
    }

    public func refuse(requestID: JSON?, requester: ClientID, _ code: ErrorCode, _ detail: String) {
        running?.loop.refuse(requestID: requestID, requester: requester, code, detail)
    }

    public func answer(_ message: JSON, to requester: ClientID) {
        running?.loop.answer(message, to: requester)
    }

    public var clientCount: Int {
        running?.listening.wake.clientCount.load(ordering: .relaxed) ?? 0
    }

    /// Delivers what was published before it (a client that does not read gets up to a second), then closes
    /// every client and the listening socket; removes the socket file unless it was inherited.
    /// It waits for the server thread, so a delegate callback must not call it.
    public func stop() {
        let stopped = state.withLock { state -> State in
            defer { state = .idle }
            return state
        }
        let listening: Listening
        switch stopped {
        case .idle:
            return
        case .listening(let claimed):
            listening = claimed
        case .running(let running):
            running.listening.wake.requestStop()
            running.finished.wait()
            listening = running.listening
        }
        FileDescriptor.close(listening.descriptor)
        if configuration.inheritedDescriptor == nil {
            unlink(configuration.path)
        }
    }

    /// As a service: serves (once `start`ed) until cancelled, then stops, on a thread of its own: `stop` waits up to
    /// a second for the server's thread, which Swift's pool must not.
    public func run() async {
        await waitForCancellation()
        let _: Void = await OSThread.value(name: "socket-stop") { [self] deliver in
            stop()
            deliver(())
        }
    }
}
