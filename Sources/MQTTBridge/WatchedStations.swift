import JSONCore

/// What `watch` knows of every station it has seen on the broker, without any I/O (`FleetWatch` prints, writes and
/// asks; fuzz/watch drives this alone): each station's events put in seq order (`StationSequence`), the answers and
/// statuses that move its gaps, and the replay requests due.
///
/// Anyone who may publish on the broker can name any station and claim any answer. So an answer's `gone` counts only
/// within the range this watch asked for, and what waits behind gaps is bounded in bytes for all stations together.
struct WatchedStations {
    /// A request not answered within this (the bridge was offline, the broker lost it) is asked again, the wait
    /// doubling for the same range up to `longestWait`: a fleet's bridges busy after an outage are not asked the same
    /// thing again and again while their answers are on the way.
    static let askAgainAfter: Duration = .seconds(5)
    static let longestWait: Duration = .seconds(60)
    /// What may wait behind gaps, all stations together (any topic level makes a station): past it, the station with
    /// the most waiting gives up its first gap (said as gone) and delivers what arrived.
    static let waitingBytesLimit = 32 << 20

    /// One message on a watched topic, as read.
    enum Message: Equatable {
        case event(seq: UInt64, line: String)
        /// An event without a seq from 1: said, never put in order.
        case unreadableEvent
        /// A replay answer: what it says is gone, and its refusal.
        case answer(gone: ClosedRange<UInt64>?, refusal: String?)
        /// A status's `acked_seq`.
        case status(acknowledged: UInt64)
    }

    struct Station {
        var sequence: StationSequence
        var asked: (range: ClosedRange<UInt64>, at: ContinuousClock.Instant, wait: Duration)?
    }

    private(set) var stations: [String: Station] = [:]
    /// The sum of the stations' `waitingBytes`.
    private(set) var waitingBytes = 0
    /// `waitingBytesLimit`, or less to test it.
    let waitingLimit: Int

    init(waitingLimit: Int = WatchedStations.waitingBytesLimit) {
        self.waitingLimit = waitingLimit
    }

    /// The station and message of a topic under the prefix (`<station>/event/<type>`, `<station>/replay/answer`,
    /// `<station>/status`); nil for any other topic, or a payload that says nothing.
    static func read(levels: [Substring], payload: [UInt8]) -> (station: String, message: Message)? {
        guard levels.count >= 2 else { return nil }
        let station = String(levels[0])
        let json = try? JSON.parse(utf8: payload)
        switch (levels.count, levels[1], levels.last) {
        case (3, "event", _):
            guard let json, let seq = json["seq"]?.integerValue, seq > 0 else { return (station, .unreadableEvent) }
            return (station, .event(seq: UInt64(seq), line: String(decoding: payload, as: UTF8.self)))
        case (3, "replay", "answer"):
            guard let json else { return nil }
            let gone = json["gone"].flatMap { gone -> ClosedRange<UInt64>? in
                guard let from = gone["from"]?.integerValue, let to = gone["to"]?.integerValue, from >= 1, from <= to else { return nil }
                return UInt64(from)...UInt64(to)
            }
            return (station, .answer(gone: gone, refusal: json["error"]?.stringValue))
        case (2, "status", _):
            guard let acknowledged = json?["acked_seq"]?.integerValue, acknowledged > 0 else { return nil }
            return (station, .status(acknowledged: UInt64(acknowledged)))
        default:
            return nil
        }
    }

    func contains(_ station: String) -> Bool { stations[station] != nil }

    /// Starts following `station` from `sequence` (a resumed file's position).
    mutating func add(_ station: String, _ sequence: StationSequence) {
        stations[station] = Station(sequence: sequence)
        waitingBytes += sequence.waitingBytes
    }

    /// Applies one message of a station already added; returns what is now in order, by station: the station's own,
    /// then those of stations that gave up a gap for the bound.
    mutating func take(_ message: Message, of station: String, at now: ContinuousClock.Instant) -> [(String, [StationSequence.Delivery])] {
        guard stations[station] != nil else { return [] }
        var out = [(station, change(station) { state in
            switch message {
            case .event(let seq, let line):
                return state.sequence.receive(seq: seq, line: line)
            case .unreadableEvent:
                return []
            case .answer(let gone, _):
                guard let asked = state.asked else { return [] }
                // Asked again at the next check if the gap is still open: the answer comes after the events it sent.
                state.asked = (asked.range, now - asked.wait + .seconds(1), asked.wait)
                // Gone counts only within what was asked (at most `ReplayRequest.largestRange` seqs): an answer from
                // anyone else that claims more cannot skip events the watch holds or has yet to receive.
                guard let gone, gone.overlaps(asked.range) else { return [] }
                return state.sequence.gone(gone.clamped(to: asked.range))
            case .status(let acknowledged):
                state.sequence.acknowledged(through: acknowledged)
                return []
            }
        })]
        while waitingBytes > waitingLimit,
              let fullest = stations.max(by: { $0.value.sequence.waitingBytes < $1.value.sequence.waitingBytes })?.key {
            let given = change(fullest) { $0.sequence.giveUpFirstGap() }
            if given.isEmpty { break }
            out.append((fullest, given))
        }
        return out.filter { !$0.1.isEmpty }
    }

    /// The replay requests due now, each marked asked: a station's first gap (at most `ReplayRequest.largestRange`
    /// seqs), unless the same range was asked within its wait.
    mutating func dueRequests(at now: ContinuousClock.Instant) -> [(station: String, range: ClosedRange<UInt64>)] {
        var due: [(String, ClosedRange<UInt64>)] = []
        for (station, state) in stations {
            guard let missing = state.sequence.missing else { continue }
            let range = missing.lowerBound...min(missing.upperBound, missing.lowerBound + ReplayRequest.largestRange - 1)
            if let asked = state.asked, asked.range == range, now - asked.at < asked.wait { continue }
            let wait = state.asked.map { $0.range == range ? min($0.wait * 2, Self.longestWait) : Self.askAgainAfter } ?? Self.askAgainAfter
            stations[station]!.asked = (range, now, wait)
            due.append((station, range))
        }
        return due
    }

    var repeats: Int { stations.values.reduce(0) { $0 + $1.sequence.repeats } }

    private mutating func change(_ station: String, _ body: (inout Station) -> [StationSequence.Delivery]) -> [StationSequence.Delivery] {
        let before = stations[station]!.sequence.waitingBytes
        let deliveries = body(&stations[station]!)
        waitingBytes += stations[station]!.sequence.waitingBytes - before
        return deliveries
    }
}
