/// The same code read again from the same scanner within `rescanAfter` of its last read is one scan:
/// a scanner in continuous mode reads a label held under it many times a second.
struct RepeatFilter {
    let rescanAfter: Duration
    private var last: (code: String, at: ContinuousClock.Instant)?

    init(rescanAfter: Duration) {
        self.rescanAfter = rescanAfter
    }

    /// True when `code` is a new scan; every read, passed or not, starts the window again.
    mutating func admit(_ code: String, at now: ContinuousClock.Instant) -> Bool {
        defer { last = (code, now) }
        guard let last, last.code == code else { return true }
        return now - last.at > rescanAfter
    }
}
