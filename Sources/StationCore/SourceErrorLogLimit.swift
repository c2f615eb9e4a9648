/// Keeps a source's errors out of the log for a while after one was logged: a source that fails, recovers and
/// fails again (a FIFO whose writer keeps sending a broken stream) would otherwise log every second.
/// Its events are still journaled and published: clients see every state.
struct SourceErrorLogLimit {
    let interval: Duration
    private var lastLogged: [String: ContinuousClock.Instant] = [:]
    private var heldBack: [String: Int] = [:]

    init(interval: Duration) {
        self.interval = interval
    }

    /// Nil when this error is held back; otherwise how many of the source's errors were held back since its last
    /// logged one.
    mutating func admit(source id: String, at now: ContinuousClock.Instant) -> Int? {
        if let last = lastLogged[id], now - last < interval {
            heldBack[id, default: 0] += 1
            return nil
        }
        lastLogged[id] = now
        return heldBack.removeValue(forKey: id) ?? 0
    }
}
