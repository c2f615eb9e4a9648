import JSONCore
import StationWire
import Synchronization

/// What the bridge knows of the daemon, for `/metrics` and `/healthz`: its last `status`, and counts from its events.
///
/// A scrape of `/metrics` asks the daemon's `status` and is answered once it comes (its connection suspended
/// meanwhile), so the daemon's numbers are those of the moment of the scrape at one round trip per scrape, not per
/// event. Scrapes that come while a question is out share its answer.
public final class StationState: Sendable {
    private struct Known {
        /// nil until the first attempt.
        var reachable: Bool?
        var status: JSON?
        var sources: JSON = .array([])
        /// The daemon's lanes, from its last `hello`; nil until it said.
        var lanes: [String]?
        var latency = LatencyHistogram()
        /// How to ask the daemon, while connected.
        var send: (@Sendable (ClientCommand) -> Bool)?
        /// The scrapes waiting for the `status` asked at `askedAt`.
        var scrapes: [DeferredAnswer] = []
        var askedAt: ContinuousClock.Instant?

        /// The waiting scrapes, no question out any more.
        mutating func takeScrapes() -> [DeferredAnswer] {
            defer {
                scrapes = []
                askedAt = nil
            }
            return scrapes
        }
    }

    /// A count by label keeps at most this many labels, each at most 64 characters: they come from outside.
    static let labelLimit = 64
    /// The id of the `status` asked for scrapes: only its answer ends their wait.
    static let scrapeStatusID: JSON = "kiosk-metrics"
    /// A scrape waits no longer for the daemon (Prometheus' own timeout is 10 s); then it gets the last `status`.
    static let scrapePatience = Duration.seconds(5)
    /// At most this many scrapes wait at once; more are answered from the last `status` at once.
    static let waitingScrapeLimit = 32
    static let metricsType = "text/plain; version=0.0.4; charset=utf-8"
    public let version: String
    private let known = Mutex(Known())
    private let now: @Sendable () -> ContinuousClock.Instant

    public init(version: String, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.version = version
        self.now = now
    }

    public var isReachable: Bool { known.withLock { $0.reachable == true } }

    /// Whether this changed what was known. An unreachable daemon answers no scrape: those waiting get what the
    /// bridge knows of itself.
    @discardableResult
    public func setReachable(_ reachable: Bool) -> Bool {
        let (changed, released) = known.withLock { known in
            defer { known.reachable = reachable }
            guard !reachable else { return (known.reachable != reachable, [DeferredAnswer]()) }
            known.send = nil
            return (known.reachable != reachable, known.takeScrapes())
        }
        answer(released)
        return changed
    }

    /// The daemon is reachable through `send` (false: the command could not be written).
    func connected(send: @escaping @Sendable (ClientCommand) -> Bool) {
        known.withLock { $0.send = send }
    }

    /// The `hello`'s sources, until a `status` brings newer ones, and its lanes.
    public func greeted(sources: JSON?, lanes: JSON? = nil) {
        known.withLock { known in
            if let sources, sources.arrayValue != nil { known.sources = sources }
            known.lanes = lanes?.arrayValue?.compactMap(\.stringValue)
        }
    }

    /// Whether the daemon has the lane `name`; nil while it has not said (unreached, or older than lanes).
    public func hasLane(_ name: String) -> Bool? {
        known.withLock { $0.lanes?.contains(name) }
    }

    /// A `status` answer; the one asked for scrapes answers them.
    public func record(status: JSON) {
        let released = known.withLock { known in
            known.status = status
            if let sources = status["sources"], sources.arrayValue != nil { known.sources = sources }
            return status["id"] == Self.scrapeStatusID ? known.takeScrapes() : []
        }
        answer(released)
    }

    /// `GET /metrics`: at once while the daemon is unreachable, else once its `status` answers the question asked now
    /// (or already out).
    func scrape() -> HTTPAnswer {
        let deferred = DeferredAnswer()
        let instant = now()
        let (waits, send) = known.withLock { known -> (Bool, (@Sendable (ClientCommand) -> Bool)?) in
            guard known.reachable == true, let send = known.send, known.scrapes.count < Self.waitingScrapeLimit else { return (false, nil) }
            known.scrapes.append(deferred)
            guard known.askedAt == nil else { return (true, nil) }
            known.askedAt = instant
            return (true, send)
        }
        guard waits else { return .document(status: 200, contentType: Self.metricsType, body: Array(metrics().utf8)) }
        if let send, !send(ClientCommand(id: Self.scrapeStatusID, action: .status)) { answer(known.withLock { $0.takeScrapes() }) }
        return .deferred(deferred)
    }

    /// Answers the scrapes whose `status` has not come within `scrapePatience` with the last one.
    func expire() {
        let instant = now()
        answer(known.withLock { known in
            guard let asked = known.askedAt, instant - asked > Self.scrapePatience else { return [] }
            return known.takeScrapes()
        })
    }

    private func answer(_ scrapes: [DeferredAnswer]) {
        guard !scrapes.isEmpty else { return }
        let body = Array(metrics().utf8)
        for scrape in scrapes { scrape.give(status: 200, contentType: Self.metricsType, body: body) }
    }

    /// A journaled event: a verdict's latency, which `status` does not keep.
    public func record(event: JSON) {
        guard MessageType(of: event) == .event(.verdict), let latency = event["latency_ms"]?.integerValue else { return }
        known.withLock { $0.latency.record(milliseconds: latency) }
    }

    /// `GET /healthz`: the status code and its JSON.
    public func health() -> (status: Int, body: String) {
        known.withLock { known in
            guard known.reachable == true else { return (503, JSON.object([("status", "daemon unreachable")]).encoded()) }
            return (200, JSON.object([("status", "ok"), ("daemon", "reachable"), ("sources", known.sources)]).encoded())
        }
    }

    /// `/metrics`' text, in Prometheus text format 0.0.4. The daemon's numbers come from its last `status`, and only
    /// while it answers: a stale `sealtrust_clients` beside `sealtrust_up 0` would say what is no longer so.
    public func metrics() -> String {
        let known = known.withLock { $0 }
        let status = known.reachable == true ? known.status : nil
        let counters = status?["counters"]
        var out = Exposition()

        out.family("sealtrust_up", "gauge", "Whether the daemon answers the bridge.")
        out.sample("sealtrust_up", [], known.reachable == true ? 1 : 0)
        out.family("sealtrust_build_info", "gauge", "The bridge's version.")
        out.sample("sealtrust_build_info", [("version", version)], 1)

        out.family("sealtrust_scans_total", "counter", "Scans since the daemon started, by medium (its status).")
        Self.counts(counters?["scans_by_medium"], label: "medium", as: "sealtrust_scans_total", into: &out)
        out.family("sealtrust_verdicts_total", "counter", "Verdicts since the daemon started, by outcome (its status).")
        Self.counts(counters?["verdicts"], label: "outcome", as: "sealtrust_verdicts_total", into: &out)
        out.family("sealtrust_read_errors_total", "counter", "Read errors since the daemon started, by reason (its status).")
        Self.counts(counters?["read_errors"], label: "reason", as: "sealtrust_read_errors_total", into: &out)
        out.family("sealtrust_api_errors_total", "counter", "Calls to the SealTrust API that failed, since the daemon started.")
        if let errors = counters?["api_errors"]?.integerValue, errors >= 0 { out.sample("sealtrust_api_errors_total", [], Double(errors)) }
        out.family("sealtrust_source_up", "gauge", "Whether each reader or camera is ready.")
        if status != nil {
            for source in known.sources.arrayValue ?? [] {
                guard let id = source["id"]?.stringValue else { continue }
                out.sample("sealtrust_source_up", [("id", id), ("medium", source["medium"]?.stringValue ?? "")],
                           source["state"]?.stringValue.flatMap(SourceState.init(rawValue:)) == .ready ? 1 : 0)
            }
        }
        out.family("sealtrust_clients", "gauge", "Clients of the daemon's socket, this bridge included.")
        if let clients = status?["clients"]?.integerValue, clients >= 0 { out.sample("sealtrust_clients", [], Double(clients)) }
        out.family("sealtrust_journal_last_seq", "gauge", "The newest journaled event's seq.")
        if let last = status?["last_seq"]?.integerValue, last >= 0 { out.sample("sealtrust_journal_last_seq", [], Double(last)) }

        out.family("sealtrust_verdict_latency_seconds", "histogram", "From the read to the verdict, as the verdicts say.")
        for (index, bound) in LatencyHistogram.bounds.enumerated() {
            out.sample("sealtrust_verdict_latency_seconds_bucket", [("le", String(bound))], Double(known.latency.counts[index]))
        }
        out.sample("sealtrust_verdict_latency_seconds_bucket", [("le", "+Inf")], Double(known.latency.total))
        out.sample("sealtrust_verdict_latency_seconds_sum", [], known.latency.sumSeconds)
        out.sample("sealtrust_verdict_latency_seconds_count", [], Double(known.latency.total))
        return out.text
    }

    /// One sample per member of a `status` object of counts (`{"nfc":3,...}`), in its order; negative or
    /// non-integer counts left out, and labels past `labelLimit`.
    private static func counts(_ object: JSON?, label: String, as name: String, into out: inout Exposition) {
        for (key, count) in (object?.objectValue ?? []).prefix(labelLimit) {
            if let count = count.integerValue, count >= 0 { out.sample(name, [(label, String(key.prefix(64)))], Double(count)) }
        }
    }
}
