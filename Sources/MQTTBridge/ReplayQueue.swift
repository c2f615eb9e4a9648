/// The replay requests that wait, and what the retained status says of the replays: a value inside `BridgeRules`.
///
/// Anyone who may publish on the request topic can ask, so what waits is bounded: `queueLimit` requests and
/// `waitingEventsLimit` events together; beyond, "busy". A request for a range that already waits joins it, so that one
/// consumer asking the same again and again does not hold the queue. Each waiting range gets one answer.
struct ReplayQueue: Sendable {
    /// Requests waiting beyond this are refused at once ("busy"), not queued without end.
    static let queueLimit = 64
    /// What all waiting requests may ask for together: two whole requests (at 2,000 a second, 100 s of work); beyond,
    /// "busy". A flood of distinct large ranges cannot hold real repairs behind it for longer.
    static let waitingEventsLimit = 2 * ReplayRequest.largestRange

    struct Progress: Sendable, Equatable {
        var waiting = 0
        var answered = 0
        var republished = 0
        var current: String?
    }

    enum Submission: Equatable, Sendable {
        /// New: the replayer serves it in its turn.
        case queued(ReplayRequest)
        /// The same range waits already: its answer is this one's too.
        case joined
        /// Answered at once.
        case refused(ReplayAnswer)

        var refusal: ReplayAnswer? {
            guard case .refused(let answer) = self else { return nil }
            return answer
        }
    }

    private(set) var progress = Progress()
    /// The ranges waiting, not yet taken by the replayer.
    private var queued: Set<ReplayRequest> = []
    private var queuedEvents: UInt64 = 0

    init() {}

    /// A request's payload from the broker.
    mutating func submit(payload: [UInt8]) -> Submission {
        let request: ReplayRequest
        do {
            request = try ReplayRequest(payload: payload)
        } catch {
            return .refused(.refused(error.reason))
        }
        if queued.contains(request) { return .joined }
        guard queued.count < Self.queueLimit else { return .refused(.refused("busy: \(Self.queueLimit) requests wait; ask again later")) }
        guard queuedEvents + request.size <= Self.waitingEventsLimit else {
            return .refused(.refused("busy: \(queuedEvents) events are asked for already; ask again later"))
        }
        queued.insert(request)
        queuedEvents += request.size
        progress.waiting = queued.count
        return .queued(request)
    }

    /// The replayer takes `request`: it no longer waits.
    mutating func started(_ request: ReplayRequest) {
        if queued.remove(request) != nil { queuedEvents -= request.size }
        progress.waiting = queued.count
        progress.current = request.toNewest ? "from \(request.first)" : "\(request.first) to \(request.last)"
    }

    mutating func republished() {
        progress.republished += 1
    }

    mutating func answered() {
        progress.current = nil
        progress.answered += 1
    }
}
