import Synchronization

/// The events published but not yet acknowledged, and the acknowledged seq: the highest seq such that it and every seq
/// before it have a PUBACK of this session.
///
/// What may be in flight is what the broker lets libmosquitto send at once (its receive maximum), never more: a
/// message beyond it would wait in libmosquitto's queue, unsent, where a PUBACK naming its mid (a broker that reuses
/// the mids of an earlier session) would delete it and count it acknowledged. Each message is recorded before its
/// PUBACK can be taken (`BrokerLink` serializes the two), so a PUBACK for a mid that is not recorded moves nothing, and
/// an event is recorded only right after the one before it, in the session the window is in.
final class PublishWindow: Sendable {
    enum Admission: Equatable {
        case publish
        /// A session ended with events unacknowledged: follow the daemon again from this seq.
        case resend(from: UInt64)
        /// Not the next seq: an event read before the daemon was followed again from an earlier seq; the
        /// restarted feed brings it again in its place.
        case stale
        case stopped
    }

    private struct Flight {
        let seq: UInt64
        var acknowledged: Bool
    }

    private struct State {
        var flights: [Flight] = []
        var head = 0
        var index: [Int32: Int] = [:]
        /// Messages that are not events (the status, replays, answers): their PUBACK moves nothing, but they take room.
        var others: Set<Int32> = []
        var acknowledgedSeq: UInt64
        var publishedSeq: UInt64
        var session = 0
        /// The session's room: `capacity`, or the broker's receive maximum when lower.
        var room = 0
        var ready = false
        var needsResend = false
        var count: Int { flights.count - head }
        var hasRoom: Bool { count + others.count < room }
    }

    /// The most events in flight, whatever the broker allows.
    let capacity: Int
    private let state: Mutex<State>
    /// Rings when room may have been made (a PUBACK, a new session); one ring kept while nobody waits.
    private let rings: AsyncStream<Void>
    private let bell: AsyncStream<Void>.Continuation

    init(capacity: Int, acknowledgedSeq: UInt64) {
        self.capacity = capacity
        state = Mutex(State(acknowledgedSeq: acknowledgedSeq, publishedSeq: acknowledgedSeq))
        (rings, bell) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    var acknowledgedSeq: UInt64 { state.withLock { $0.acknowledgedSeq } }
    var inFlight: Int { state.withLock { $0.count } }

    /// A session was accepted, whose broker takes `receiveMaximum` messages in flight. What the last one left
    /// unacknowledged is gone with its libmosquitto instance: the caller takes the resend (`takeResend`) at once, since
    /// no event may come from the daemon to ask for it.
    func sessionStarted(_ session: Int, receiveMaximum: Int) {
        state.withLock { state in
            state.session = session
            state.room = max(1, min(capacity, receiveMaximum))
            state.ready = true
            if state.publishedSeq > state.acknowledgedSeq { state.needsResend = true }
            state.flights.removeAll()
            state.head = 0
            state.index.removeAll()
            state.others.removeAll()
        }
        bell.yield()
    }

    func sessionEnded() {
        state.withLock { $0.ready = false }
    }

    /// Waits until the broker is connected and the window has room for event `seq`; `.stopped` once the task is
    /// cancelled. One task admits at a time.
    func admit(seq: UInt64) async -> Admission {
        var ringing = rings.makeAsyncIterator()
        while !Task.isCancelled {
            if let admitted = state.withLock({ state in canAdmit(state) ? Self.admission(&state, seq: seq) : nil }) { return admitted }
            guard await ringing.next() != nil else { break }
        }
        return .stopped
    }

    /// Waits until a message that is not an event (a replayed one) has room; false once the task is cancelled. It polls:
    /// the bell is the events' task's.
    func admitOther() async -> Bool {
        while !Task.isCancelled {
            if state.withLock({ $0.ready && $0.hasRoom }) { return true }
            do { try await Task.sleep(for: .milliseconds(20)) } catch { return false }
        }
        return false
    }

    /// The resend a new session (or a publish on a session that had just ended) calls for, taken once: the seq to
    /// follow the daemon again from; nil when none is due.
    func takeResend() -> UInt64? {
        state.withLock { state in
            guard state.needsResend else { return nil }
            state.needsResend = false
            state.publishedSeq = state.acknowledgedSeq
            return state.acknowledgedSeq
        }
    }

    /// An event handed to libmosquitto on `session` as message `mid`, before its PUBACK can be taken; false when it
    /// cannot count: that session is not the window's (it ended, or the window has not heard of it yet), or the event
    /// does not follow the last one recorded (it was admitted in an earlier session). A resend (`takeResend`) is then due.
    @discardableResult
    func record(seq: UInt64, mid: Int32, session: Int) -> Bool {
        state.withLock { state in
            let follows = seq == (state.flights.last?.seq ?? state.acknowledgedSeq) + 1
            state.publishedSeq = seq
            guard session == state.session, follows, state.index[mid] == nil else {
                state.needsResend = true
                return false
            }
            state.index[mid] = state.flights.count
            state.flights.append(Flight(seq: seq, acknowledged: false))
            return true
        }
    }

    /// A message that is not an event (the status, a replayed event, an answer) handed to libmosquitto, before its
    /// PUBACK can be taken.
    func recordOther(mid: Int32, session: Int) {
        state.withLock { state in
            guard session == state.session else { return }
            state.others.insert(mid)
        }
    }

    /// Seqs removed by the daemon's retention: nothing to wait for up to `seq`.
    func skip(through seq: UInt64) {
        state.withLock { state in
            state.publishedSeq = max(state.publishedSeq, seq)
            state.flights.append(Flight(seq: seq, acknowledged: true))
            Self.advance(&state)
        }
    }

    /// The daemon's journal started again below what was acknowledged: count from `seq`.
    func rebase(to seq: UInt64) {
        state.withLock { state in
            state.flights.removeAll()
            state.head = 0
            state.index.removeAll()
            state.acknowledgedSeq = seq
            state.publishedSeq = seq
            state.needsResend = false
        }
    }

    /// A PUBACK; returns the event's seq when it was one. A mid this session did not record (an earlier session's, one
    /// never sent) moves nothing.
    @discardableResult
    func acknowledge(mid: Int32, session: Int) -> UInt64? {
        let seq = state.withLock { state -> UInt64? in
            guard session == state.session else { return nil }
            if state.others.remove(mid) != nil { return nil }
            guard let position = state.index.removeValue(forKey: mid) else { return nil }
            state.flights[position].acknowledged = true
            let seq = state.flights[position].seq
            Self.advance(&state)
            return seq
        }
        bell.yield()
        return seq
    }

    private func canAdmit(_ state: State) -> Bool {
        state.ready && (state.needsResend || state.hasRoom)
    }

    private static func admission(_ state: inout State, seq: UInt64) -> Admission {
        // In seq order only: the flights' order is what makes the acknowledged seq contiguous.
        guard state.needsResend else { return seq == state.publishedSeq + 1 ? .publish : .stale }
        state.needsResend = false
        state.publishedSeq = state.acknowledgedSeq
        return .resend(from: state.acknowledgedSeq)
    }

    private static func advance(_ state: inout State) {
        while state.head < state.flights.count, state.flights[state.head].acknowledged {
            state.acknowledgedSeq = state.flights[state.head].seq
            state.head += 1
        }
        if state.head == state.flights.count {
            state.flights.removeAll(keepingCapacity: true)
            state.head = 0
            state.index.removeAll(keepingCapacity: true)
        } else if state.head >= 4_096 {
            state.flights.removeFirst(state.head)
            let shift = state.head
            state.index = state.index.mapValues { $0 - shift }
            state.head = 0
        }
    }
}
