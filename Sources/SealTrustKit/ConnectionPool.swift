import POSIXSupport
import Synchronization

/// The connections to the API that wait between calls. `ready` *fresh* ones (opened, tunnelled, TLS done, nothing
/// ever sent) are kept for the calls that are never retried, so a tap costs one round trip, also when the station's
/// lanes tap at once: one fresh connection for all would make each tap that comes while another's call is out open
/// its own on its path (a TCP and a TLS handshake). Connections that have served an answer serve reads only. Every connection is checked alive just before use, and none
/// is used once it has idled `keepAlive`: the fresh one is renewed a little before, off the call's path.
final class ConnectionPool: Sendable {
    private struct State {
        var fresh: [CurlConnection] = []
        var used: [CurlConnection] = []
        /// Fresh connections being opened.
        var opening = 0
    }

    private let settings: ConnectionSettings
    private let keepAlive: Duration
    private let openTimeout: Duration
    /// How many fresh connections are kept: one for each call that may start at once.
    private let ready: Int
    private let state = Mutex(State())
    /// Ends the renewal thread when the pool goes.
    private let stopRenewal = ThreadSignal()

    /// Enough for the calls in flight that a station makes at once; more would only hold memory.
    private static let maximumUsed = 4

    init(settings: ConnectionSettings, keepAlive: Duration, openTimeout: Duration, ready: Int = 1) {
        self.ready = max(1, ready)
        self.settings = settings
        self.keepAlive = keepAlive
        self.openTimeout = openTimeout
        // The renewal waits on a thread of its own (a blocking wait, not one of Swift's pool) until the
        // next connection is due; it holds the pool only while it renews.
        OSThread.start(name: "api-renewal") { [weak self, stopRenewal] in
            while let wake = self?.nextRenewal() {
                if stopRenewal.wait(timeout: max(.zero, wake - .now)) { return }
                self?.renewDueConnections()
            }
        }
        prepareFresh()
    }

    deinit {
        stopRenewal.signal()
    }

    /// Blocks. A connection that has never carried a request when `fresh` is asked; otherwise a kept-alive
    /// one first. Each is checked alive before it is handed out; when none is, one is opened now. The caller
    /// calls `replenish` once its exchange is over.
    func connection(fresh: Bool, deadline: ContinuousClock.Instant) throws(TransportFailure) -> CurlConnection {
        while let candidate = takeIdle(fresh: fresh) {
            if candidate.isAlive {
                return candidate
            }
        }
        return try CurlConnection.open(settings, deadline: deadline)
    }

    /// Whether a connection can be opened now, within `timeout`, sending nothing: always a new one (an idle one may
    /// look alive on a network that went silent), which is then kept as the fresh one for the next call.
    func check(timeout: Duration) throws(TransportFailure) {
        let connection = try CurlConnection.open(settings, deadline: .now + timeout)
        let closed = state.withLock { state -> [CurlConnection] in
            state.fresh.append(connection)
            return state.fresh.count > ready ? [state.fresh.removeFirst()] : []
        }
        withExtendedLifetime(closed) {}
    }

    /// After a whole answer on a connection the server keeps open.
    func keep(_ connection: CurlConnection) {
        connection.markIdle()
        let closed = state.withLock { state -> CurlConnection? in
            state.used.append(connection)
            return state.used.count > Self.maximumUsed ? state.used.removeFirst() : nil
        }
        withExtendedLifetime(closed) {}
    }

    /// The newest idle connection of the kind asked; those idle past the keep-alive are closed, outside the lock.
    private func takeIdle(fresh: Bool) -> CurlConnection? {
        let now = ContinuousClock.now
        let (taken, closed) = state.withLock { state -> (CurlConnection?, [CurlConnection]) in
            let closed = state.fresh.filter { now - $0.idleSince >= keepAlive } + state.used.filter { now - $0.idleSince >= keepAlive }
            state.fresh.removeAll { now - $0.idleSince >= keepAlive }
            state.used.removeAll { now - $0.idleSince >= keepAlive }
            if !fresh, let used = state.used.popLast() {
                return (used, closed)
            }
            return (state.fresh.popLast(), closed)
        }
        withExtendedLifetime(closed) {}
        return taken
    }

    private var renewAfter: Duration { keepAlive * 0.8 }

    /// Blocks: opens fresh connections on the calling thread until `ready` are ready or being opened. Called
    /// after an exchange, once its answer is handed over: opening the next connection while the request is out
    /// would take the CPU and the server's attention from it.
    func replenish() {
        if claimOpening(renewing: false) { openFresh() }
    }

    /// Opens fresh connections on a thread of its own until `ready` are ready or being opened (to renew, one even if
    /// they are, when none is being opened).
    private func prepareFresh(renewing: Bool = false) {
        guard claimOpening(renewing: renewing) else { return }
        OSThread.startOrRunHere(name: "api-connect") { [self] in openFresh() }
    }

    private func claimOpening(renewing: Bool) -> Bool {
        state.withLock { state in
            guard renewing ? state.opening == 0 : state.fresh.count + state.opening < ready else { return false }
            state.opening += 1
            return true
        }
    }

    /// Once a new connection is ready, it replaces the fresh ones due for renewal; then the next one, until `ready`
    /// are ready or being opened. A connection that cannot be opened ends the round (renewal tries again later).
    private func openFresh() {
        var more = true
        while more {
            let opened = try? CurlConnection.open(settings, deadline: .now + openTimeout)
            let now = ContinuousClock.now
            let (replaced, next) = state.withLock { state -> ([CurlConnection], Bool) in
                state.opening -= 1
                guard let opened else { return ([], false) }
                let replaced = state.fresh.filter { now - $0.idleSince >= renewAfter }
                state.fresh.removeAll { now - $0.idleSince >= renewAfter }
                state.fresh.append(opened)
                guard state.fresh.count + state.opening < ready else { return (replaced, false) }
                state.opening += 1
                return (replaced, true)
            }
            withExtendedLifetime(replaced) {}
            more = next
        }
    }

    /// When the fresh connection is due for renewal, or a kept one for closing; never sooner than a tenth of
    /// the keep-alive, so that a renewal that keeps failing (no network) is retried at that pace, not in a spin.
    private func nextRenewal() -> ContinuousClock.Instant {
        let soonest = ContinuousClock.now + keepAlive / 10
        return state.withLock { state in
            let due = state.fresh.map { $0.idleSince + renewAfter } + state.used.map { $0.idleSince + keepAlive }
            return max(soonest, due.min() ?? .now + renewAfter)
        }
    }

    /// Renews a fresh connection that is due, and closes kept ones past the keep-alive.
    private func renewDueConnections() {
        let now = ContinuousClock.now
        let (renewalDue, closed) = state.withLock { state -> (Bool, [CurlConnection]) in
            let closed = state.used.filter { now - $0.idleSince >= keepAlive } + state.fresh.filter { now - $0.idleSince >= keepAlive }
            state.used.removeAll { now - $0.idleSince >= keepAlive }
            state.fresh.removeAll { now - $0.idleSince >= keepAlive }
            return (state.fresh.count < ready || state.fresh.contains { now - $0.idleSince >= renewAfter }, closed)
        }
        withExtendedLifetime(closed) {}
        if renewalDue {
            prepareFresh(renewing: true)
        }
    }
}
