/// A warning that outside input can repeat at will (a flood of bad replay requests): at most one line per `interval`,
/// the next one saying how many were held back, as the daemon does for a source's errors.
struct LimitedLog: Sendable {
    let interval: Duration
    private var lastLogged: ContinuousClock.Instant?
    private var heldBack = 0

    init(interval: Duration = .seconds(10)) {
        self.interval = interval
    }

    /// `line` to log now, with the count held back since the last one; nil within the interval.
    mutating func admit(_ line: String, at now: ContinuousClock.Instant) -> String? {
        if let lastLogged, now - lastLogged < interval {
            heldBack += 1
            return nil
        }
        defer {
            lastLogged = now
            heldBack = 0
        }
        return heldBack == 0 ? line : "\(line) (and \(heldBack) more since the last one logged)"
    }
}
