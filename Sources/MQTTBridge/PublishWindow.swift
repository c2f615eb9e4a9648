import Synchronization

/// The events published but not yet acknowledged, at most `capacity` of them, and the
/// acknowledged seq: the highest seq such that it and every seq before it have a PUBACK.
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
        /// PUBACKs whose publish was not recorded yet (the broker can answer before `record` runs).
        var earlyAcknowledgements: Set<Int32> = []
        /// Messages that are not events (the status): their PUBACK moves nothing.
        var others: Set<Int32> = []
        var acknowledgedSeq: UInt64
        var publishedSeq: UInt64
        var session = 0
        var ready = false
        var needsResend = false
        var count: Int { flights.count - head }
    }

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

    /// A session was accepted. What the last one left unacknowledged is gone with its libmosquitto instance: the
    /// caller takes the resend (`takeResend`) at once, since no event may come from the daemon to ask for it.
    func sessionStarted(_ session: Int) {
        state.withLock { state in
            state.session = session
            state.ready = true
            if state.publishedSeq > state.acknowledgedSeq { state.needsResend = true }
            state.flights.removeAll()
            state.head = 0
            state.index.removeAll()
            state.earlyAcknowledgements.removeAll()
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

    /// An event handed to libmosquitto on `session` as message `mid`; false when that session had ended, and a
    /// resend (`takeResend`) is due.
    @discardableResult
    func record(seq: UInt64, mid: Int32, session: Int) -> Bool {
        state.withLock { state in
            state.publishedSeq = seq
            guard session == state.session else {
                state.needsResend = true
                return false
            }
            let acknowledged = state.earlyAcknowledgements.remove(mid) != nil
            state.index[mid] = state.flights.count
            state.flights.append(Flight(seq: seq, acknowledged: acknowledged))
            if acknowledged { Self.advance(&state) }
            return true
        }
    }

    /// A message that is not an event (the status) handed to libmosquitto.
    func recordOther(mid: Int32, session: Int) {
        state.withLock { state in
            guard session == state.session, state.earlyAcknowledgements.remove(mid) == nil else { return }
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

    /// A PUBACK; returns the event's seq when it was one.
    @discardableResult
    func acknowledge(mid: Int32, session: Int) -> UInt64? {
        let seq = state.withLock { state -> UInt64? in
            guard session == state.session else { return nil }
            if state.others.remove(mid) != nil { return nil }
            guard let position = state.index.removeValue(forKey: mid) else {
                state.earlyAcknowledgements.insert(mid)
                return nil
            }
            state.flights[position].acknowledged = true
            let seq = state.flights[position].seq
            Self.advance(&state)
            return seq
        }
        bell.yield()
        return seq
    }

    private func canAdmit(_ state: State) -> Bool {
        state.ready && (state.needsResend || state.count < capacity)
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
