/// The events published but not yet acknowledged, and the acknowledged seq: the highest seq such that it and every seq
/// before it have a PUBACK of this session.
///
/// What may be in flight is what the broker lets libmosquitto send at once (its receive maximum), never more: a
/// message beyond it would wait in libmosquitto's queue, unsent, where a PUBACK naming its mid (a broker that reuses
/// the mids of an earlier session) would delete it and count it acknowledged. Each message is recorded before its
/// PUBACK can be taken (`BrokerLink` serializes the two), so a PUBACK for a mid that is not recorded moves nothing, and
/// an event is recorded only right after the one before it, in the session the window is in.
///
/// A value inside `BridgeRules`: the runtime waits for room (`admission` nil) until a PUBACK or a new session.
struct PublishWindow: Sendable {
    enum Admission: Equatable {
        case publish
        /// A session ended with events unacknowledged: follow the daemon again from this seq.
        case resend(from: UInt64)
        /// Not the next seq: an event read before the daemon was followed again from an earlier seq; the
        /// restarted feed brings it again in its place.
        case stale
    }

    private struct Flight {
        let seq: UInt64
        var acknowledged: Bool
    }

    /// The most events in flight, whatever the broker allows.
    let capacity: Int
    private var flights: [Flight] = []
    private var head = 0
    private var index: [Int32: Int] = [:]
    /// Messages that are not events (the status, replays, answers): their PUBACK moves nothing, but they take room.
    private var others: Set<Int32> = []
    private(set) var acknowledgedSeq: UInt64
    private var publishedSeq: UInt64
    private var session = 0
    /// The session's room: `capacity`, or the broker's receive maximum when lower.
    private var room = 0
    private var ready = false
    private var needsResend = false

    init(capacity: Int, acknowledgedSeq: UInt64) {
        self.capacity = capacity
        self.acknowledgedSeq = acknowledgedSeq
        publishedSeq = acknowledgedSeq
    }

    var inFlight: Int { flights.count - head }
    private var hasRoom: Bool { inFlight + others.count < room }
    /// A message that is not an event may be handed over now.
    var hasRoomForOther: Bool { ready && hasRoom }

    /// A session was accepted, whose broker takes `receiveMaximum` messages in flight. What the last one left
    /// unacknowledged is gone with its libmosquitto instance: the caller takes the resend (`takeResend`) at once, since
    /// no event may come from the daemon to ask for it.
    mutating func sessionStarted(_ session: Int, receiveMaximum: Int) {
        self.session = session
        room = max(1, min(capacity, receiveMaximum))
        ready = true
        if publishedSeq > acknowledgedSeq { needsResend = true }
        flights.removeAll()
        head = 0
        index.removeAll()
        others.removeAll()
    }

    mutating func sessionEnded() {
        ready = false
    }

    /// Whether event `seq` may be handed over now; nil while it must wait (no session, no room) for a PUBACK or a new
    /// session.
    mutating func admission(seq: UInt64) -> Admission? {
        guard ready && (needsResend || hasRoom) else { return nil }
        // In seq order only: the flights' order is what makes the acknowledged seq contiguous.
        guard needsResend else { return seq == publishedSeq + 1 ? .publish : .stale }
        needsResend = false
        publishedSeq = acknowledgedSeq
        return .resend(from: acknowledgedSeq)
    }

    /// The resend a new session (or a publish on a session that had just ended) calls for, taken once: the seq to
    /// follow the daemon again from; nil when none is due.
    mutating func takeResend() -> UInt64? {
        guard needsResend else { return nil }
        needsResend = false
        publishedSeq = acknowledgedSeq
        return acknowledgedSeq
    }

    /// An event handed to libmosquitto on `session` as message `mid`, before its PUBACK can be taken; false when it
    /// cannot count: that session is not the window's (it ended, or the window has not heard of it yet), or the event
    /// does not follow the last one recorded (it was admitted in an earlier session). A resend (`takeResend`) is then due.
    @discardableResult
    mutating func record(seq: UInt64, mid: Int32, session: Int) -> Bool {
        let follows = seq == (flights.last?.seq ?? acknowledgedSeq) + 1
        publishedSeq = seq
        guard session == self.session, follows, index[mid] == nil else {
            needsResend = true
            return false
        }
        index[mid] = flights.count
        flights.append(Flight(seq: seq, acknowledged: false))
        return true
    }

    /// A message that is not an event (the status, a replayed event, an answer) handed to libmosquitto, before its
    /// PUBACK can be taken.
    mutating func recordOther(mid: Int32, session: Int) {
        guard session == self.session else { return }
        others.insert(mid)
    }

    /// Seqs removed by the daemon's retention: nothing to wait for up to `seq`.
    mutating func skip(through seq: UInt64) {
        publishedSeq = max(publishedSeq, seq)
        flights.append(Flight(seq: seq, acknowledged: true))
        advance()
    }

    /// The daemon's journal started again below what was acknowledged: count from `seq`.
    mutating func rebase(to seq: UInt64) {
        flights.removeAll()
        head = 0
        index.removeAll()
        acknowledgedSeq = seq
        publishedSeq = seq
        needsResend = false
    }

    /// A PUBACK; returns the event's seq when it was one. A mid this session did not record (an earlier session's, one
    /// never sent) moves nothing.
    @discardableResult
    mutating func acknowledge(mid: Int32, session: Int) -> UInt64? {
        guard session == self.session else { return nil }
        if others.remove(mid) != nil { return nil }
        guard let position = index.removeValue(forKey: mid) else { return nil }
        flights[position].acknowledged = true
        let seq = flights[position].seq
        advance()
        return seq
    }

    private mutating func advance() {
        while head < flights.count, flights[head].acknowledged {
            acknowledgedSeq = flights[head].seq
            head += 1
        }
        if head == flights.count {
            flights.removeAll(keepingCapacity: true)
            head = 0
            index.removeAll(keepingCapacity: true)
        } else if head >= 4_096 {
            flights.removeFirst(head)
            let shift = head
            index = index.mapValues { $0 - shift }
            head = 0
        }
    }
}
