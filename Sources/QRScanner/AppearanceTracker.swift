/// One scan per appearance: a code is new when it was not seen during the last `rescanAfter`.
struct AppearanceTracker {
    let rescanAfter: Duration
    private var lastSeen: [[UInt8]: Duration] = [:]

    init(rescanAfter: Duration) {
        self.rescanAfter = rescanAfter
    }

    /// The payloads seen at `time` that start an appearance, each once, in the frame's order.
    mutating func newAppearances(in payloads: [[UInt8]], at time: Duration) -> [[UInt8]] {
        var appeared: [[UInt8]] = []
        for payload in payloads {
            let isNew = lastSeen[payload].map { time - $0 >= rescanAfter } ?? true
            if isNew, !appeared.contains(payload) {
                appeared.append(payload)
            }
            lastSeen[payload] = time
        }
        lastSeen = lastSeen.filter { time - $0.value < rescanAfter }
        return appeared
    }

    /// A new stream has a clock of its own: what was in view before is forgotten.
    mutating func reset() {
        lastSeen.removeAll()
    }
}
