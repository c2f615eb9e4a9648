import Synchronization

/// A warning that outside input can repeat at will (a flood of bad replay requests): at most one line per `interval`,
/// the next one saying how many were held back, as the daemon does for a source's errors.
final class LimitedLog: Sendable {
    private struct State {
        var lastLogged: ContinuousClock.Instant?
        var heldBack = 0
    }

    let interval: Duration
    private let state = Mutex(State())

    init(interval: Duration = .seconds(10)) {
        self.interval = interval
    }

    /// `line` to log now, with the count held back since the last one; nil within the interval.
    func admit(_ line: String, at now: ContinuousClock.Instant = .now) -> String? {
        state.withLock { state in
            if let last = state.lastLogged, now - last < interval {
                state.heldBack += 1
                return nil
            }
            defer {
                state.lastLogged = now
                state.heldBack = 0
            }
            return state.heldBack == 0 ? line : "\(line) (and \(state.heldBack) more since the last one logged)"
        }
    }
}
