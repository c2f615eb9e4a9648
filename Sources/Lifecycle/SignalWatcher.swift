import Glibc
import POSIXSupport

/// Takes SIGTERM, SIGINT and SIGHUP on one dedicated thread with sigwait(2), never in a handler.
///
/// `blockSignals()` must run first thing in `main`, before any thread starts: every thread then inherits the mask,
/// so no thread can take one of these signals with its default action (which would end the daemon without
/// closing the journal), and a signal that comes before the watcher is running waits, pending, for it.
public enum SignalWatcher {
    public enum Request: Sendable, Equatable {
        case reload
        case stop(signal: String)
    }

    static let numbers = [SIGTERM, SIGINT, SIGHUP]

    public static func blockSignals() {
        var set = signalSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
    }

    /// The requests, in the order the signals came. The thread lives as long as the process.
    static func requests() -> AsyncStream<Request> {
        let bridge = ThreadBridge<Request>()
        OSThread.start(name: "signals") {
            var set = signalSet()
            while true {
                var number: Int32 = 0
                guard sigwait(&set, &number) == 0 else { continue }
                switch number {
                case SIGHUP: bridge.send(.reload)
                case SIGINT: bridge.send(.stop(signal: "SIGINT"))
                default: bridge.send(.stop(signal: "SIGTERM"))
                }
            }
        }
        return bridge.elements
    }

    private static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in numbers { sigaddset(&set, number) }
        return set
    }
}
