/// Bounds the API calls in flight and knows when the last scan has its verdict.
///
/// A scan waits for a slot only while `limit` calls are already out; one slow answer never holds up the next scan.
final class ScanTracker: Sendable {
    private struct State {
        var callsInFlight = 0
        var waitingForSlot: [CheckedContinuation<Void, Never>] = []
        var scansInProgress = 0
        var waitingForIdle: [CheckedContinuation<Void, Never>] = []
        var isAccepting = true
    }

    private let limit: Int
    private let state = LockedValue(State())

    init(limit: Int) {
        self.limit = limit
    }

    /// False once the daemon is stopping: the scan is not taken.
    func beginScan() -> Bool {
        state.withLock { state in
            guard state.isAccepting else { return false }
            state.scansInProgress += 1
            return true
        }
    }

    func endScan() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.scansInProgress -= 1
            guard state.scansInProgress == 0 else { return [] }
            defer { state.waitingForIdle.removeAll() }
            return state.waitingForIdle
        }
        waiters.forEach { $0.resume() }
    }

    func acquireCallSlot() async {
        await withCheckedContinuation { continuation in
            let granted = state.withLock { state -> Bool in
                guard state.callsInFlight < limit else {
                    state.waitingForSlot.append(continuation)
                    return false
                }
                state.callsInFlight += 1
                return true
            }
            if granted { continuation.resume() }
        }
    }

    /// Hands the slot straight to the next waiting scan, if any.
    func releaseCallSlot() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waitingForSlot.isEmpty else {
                state.callsInFlight -= 1
                return nil
            }
            return state.waitingForSlot.removeFirst()
        }
        next?.resume()
    }

    /// Stops taking scans and returns once those in progress have their verdicts.
    func stopAndDrain() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state -> Bool in
                state.isAccepting = false
                guard state.scansInProgress > 0 else { return true }
                state.waitingForIdle.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }
}
