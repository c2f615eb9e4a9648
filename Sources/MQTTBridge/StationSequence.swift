/// One station's events as `watch` receives them, put back in seq order: each seq once, in order, and a gap held
/// open until the journal's events fill it or the bridge says they are gone.
///
/// The broker may lose events it acknowledged, and delivers a replayed event after later ones: what comes early
/// waits here (at most `pendingLimit` events; the watch bounds all stations' together in bytes), and `missing` is the
/// range to ask the bridge for again.
struct StationSequence {
    /// Past this many events waiting behind a gap, the gap is given up (said as `gone`), so memory stays bounded.
    static let pendingLimit = 100_000

    enum Delivery: Equatable {
        case event(seq: UInt64, line: String)
        /// Seqs that will never come: the journal's retention removed them (or the wait for them was given up).
        case gone(ClosedRange<UInt64>)
    }

    /// The next seq to deliver; nil until the first event (or a resumed file) sets it.
    private(set) var next: UInt64?
    private var pending: [UInt64: String] = [:]
    /// The bytes of the lines that wait.
    private(set) var waitingBytes = 0
    /// The newest seq the bridge says the broker acknowledged (its retained status): a gap at the end of a burst.
    private var acknowledged: UInt64 = 0
    private(set) var repeats = 0

    init(resumingAfter last: UInt64?) {
        next = last.map { $0 + 1 }
    }

    /// Takes one event; returns what is now in order.
    mutating func receive(seq: UInt64, line: String) -> [Delivery] {
        let expected = next ?? seq
        next = expected
        guard seq >= expected, pending[seq] == nil else {
            repeats += 1
            return []
        }
        pending[seq] = line
        waitingBytes += line.utf8.count
        var delivered = drain()
        if pending.count > Self.pendingLimit { delivered += giveUpFirstGap() }
        return delivered
    }

    /// Gives up the first gap, said as `gone` (the events may still exist; the wait for them is over), and returns what
    /// is then in order: what waited behind it, written as it arrived.
    mutating func giveUpFirstGap() -> [Delivery] {
        guard let first = pending.keys.min(), let start = next, first > start else { return [] }
        next = first
        return [.gone(start...first - 1)] + drain()
    }

    /// The bridge's `acked_seq`: every seq up to it was published, so any not received yet is missing.
    mutating func acknowledged(through seq: UInt64) {
        acknowledged = max(acknowledged, seq)
    }

    /// The bridge answered that retention removed `range`: skips it, and returns what is now in order. Only the events
    /// waiting in the range are touched, whatever its size (the caller bounds what an answer may claim).
    mutating func gone(_ range: ClosedRange<UInt64>) -> [Delivery] {
        guard let start = next, range.upperBound >= start, range.upperBound < UInt64.max else { return [] }
        let skipped = max(start, range.lowerBound)...range.upperBound
        guard skipped.lowerBound == start else { return [] }
        pending = pending.filter { !skipped.contains($0.key) }
        waitingBytes = pending.values.reduce(0) { $0 + $1.utf8.count }
        next = range.upperBound + 1
        return [.gone(skipped)] + drain()
    }

    /// The first gap: from the next seq to the seq before the first one waiting (or to the acknowledged seq).
    var missing: ClosedRange<UInt64>? {
        guard let start = next else { return nil }
        if let first = pending.keys.min() { return start...first - 1 }
        return acknowledged >= start ? start...acknowledged : nil
    }

    private mutating func drain() -> [Delivery] {
        var delivered: [Delivery] = []
        while let start = next, let line = pending.removeValue(forKey: start) {
            waitingBytes -= line.utf8.count
            delivered.append(.event(seq: start, line: line))
            next = start + 1
        }
        return delivered
    }
}
