import JSONCore

/// A consumer's request on `<prefix>/<station>/replay`: `{"since":N}` for every event after N, or `{"from":A,"to":B}`
/// for the events A through B. QoS 1 hands an event to the broker, not to its consumers, and a broker may lose what
/// it acknowledged (mosquitto writes its store to disk on an interval): the journal keeps the truth, and a consumer
/// that sees a gap in a station's seqs asks for it again.
struct ReplayRequest: Hashable, Sendable {
    /// The most events one request may ask for: a request is a few bytes, a republish can be the whole journal.
    /// `{"since":N}` is bound by it too: it asks for N+1 through N+100,000 at most.
    static let largestRange: UInt64 = 100_000

    let first: UInt64
    /// The last seq it may send.
    let last: UInt64
    /// `{"since":N}`: through the newest event, within `largestRange`; its answer says how far it went.
    let toNewest: Bool

    init(first: UInt64, last: UInt64, toNewest: Bool = false) {
        self.first = first
        self.last = last
        self.toNewest = toNewest
    }

    /// How many seqs it may send.
    var size: UInt64 { last - first + 1 }

    /// The request in `payload`, or why it is none, in words for the answer.
    init(payload: [UInt8]) throws(ReplayRequestError) {
        guard payload.count <= 1_024, case .object(let members)? = try? JSON.parse(utf8: payload) else {
            throw ReplayRequestError("not a JSON object of at most 1 KiB")
        }
        func seq(_ name: String) throws(ReplayRequestError) -> UInt64? {
            guard let value = members.first(where: { $0.0 == name })?.1 else { return nil }
            guard let number = value.integerValue, number >= 0, UInt64(number) <= AcknowledgedSeqFile.largestSeq else {
                throw ReplayRequestError("\(name) must be a seq, an integer from 0")
            }
            return UInt64(number)
        }
        let since = try seq("since")
        let from = try seq("from")
        let to = try seq("to")
        switch (since, from, to) {
        case (let since?, nil, nil):
            self.init(first: since + 1, last: since + Self.largestRange, toNewest: true)
        case (nil, let from?, let to?) where from >= 1 && from <= to:
            guard to - from < Self.largestRange else { throw ReplayRequestError("at most \(Self.largestRange) events per request") }
            self.init(first: from, last: to)
        default:
            throw ReplayRequestError(#"give {"since":N} or {"from":A,"to":B} with 1 <= A <= B"#)
        }
    }
}

struct ReplayRequestError: Error, Equatable, Sendable {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
