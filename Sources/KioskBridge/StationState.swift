import JSONCore
import Synchronization

/// What the bridge knows of the daemon, for `/metrics` and `/healthz`: its last `status`, and counts from its events.
public final class StationState: Sendable {
    private struct Known {
        /// nil until the first attempt.
        var reachable: Bool?
        var status: JSON?
        var sources: JSON = .array([])
        var latency = LatencyHistogram()
        var scansByMedium: [String: UInt64] = [:]
        var readErrorsByReason: [String: UInt64] = [:]
    }

    /// The counts by label keep at most this many labels: values come from outside.
    static let labelLimit = 64
    public let version: String
    private let known = Mutex(Known())

    public init(version: String) {
        self.version = version
    }

    /// Whether this changed what was known.
    @discardableResult
    public func setReachable(_ reachable: Bool) -> Bool {
        known.withLock { known in
            defer { known.reachable = reachable }
            return known.reachable != reachable
        }
    }

    /// The `hello`'s sources, until a `status` brings newer ones.
    public func greeted(sources: JSON?) {
        known.withLock { known in
            if let sources, sources.arrayValue != nil { known.sources = sources }
        }
    }

    public func record(status: JSON) {
        known.withLock { known in
            known.status = status
            if let sources = status["sources"], sources.arrayValue != nil { known.sources = sources }
        }
    }

    /// A journaled event, counted by what `status` does not break down.
    public func record(event: JSON) {
        known.withLock { known in
            switch event["type"]?.stringValue {
            case "verdict":
                if let latency = event["latency_ms"]?.integerValue { known.latency.record(milliseconds: latency) }
            case "scan":
                Self.count(event["medium"]?.stringValue ?? "unknown", in: &known.scansByMedium)
            case "read_error":
                Self.count(event["reason"]?.stringValue ?? "unknown", in: &known.readErrorsByReason)
            default:
                break
            }
        }
    }

    private static func count(_ label: String, in counts: inout [String: UInt64]) {
        let key = counts[label] != nil || counts.count < labelLimit ? String(label.prefix(64)) : "other"
        counts[key, default: 0] += 1
    }

    /// `GET /healthz`: the status code and its JSON.
    public func health() -> (status: Int, body: String) {
        known.withLock { known in
            guard known.reachable == true else { return (503, JSON.object([("status", "daemon unreachable")]).encoded()) }
            return (200, JSON.object([("status", "ok"), ("daemon", "reachable"), ("sources", known.sources)]).encoded())
        }
    }

    /// `GET /metrics`, in Prometheus text format 0.0.4.
    public func metrics() -> String {
        let known = known.withLock { $0 }
        var out = Exposition()
        let counters = known.status?["counters"]

        out.family("sealtrust_up", "gauge", "Whether the daemon answers the bridge.")
        out.sample("sealtrust_up", [], known.reachable == true ? 1 : 0)
        out.family("sealtrust_build_info", "gauge", "The bridge's version.")
        out.sample("sealtrust_build_info", [("version", version)], 1)

        out.family("sealtrust_scans_total", "counter", "Scans seen by the bridge since it started, by medium.")
        for (medium, count) in known.scansByMedium.sorted(by: { $0.key < $1.key }) {
            out.sample("sealtrust_scans_total", [("medium", medium)], Double(count))
        }
        out.family("sealtrust_verdicts_total", "counter", "Verdicts since the daemon started, by outcome (its status).")
        for (outcome, count) in counters?["verdicts"]?.objectValue ?? [] {
            if let count = count.integerValue, count >= 0 { out.sample("sealtrust_verdicts_total", [("outcome", outcome)], Double(count)) }
        }
        out.family("sealtrust_read_errors_total", "counter", "Read errors seen by the bridge since it started, by reason.")
        for (reason, count) in known.readErrorsByReason.sorted(by: { $0.key < $1.key }) {
            out.sample("sealtrust_read_errors_total", [("reason", reason)], Double(count))
        }
        out.family("sealtrust_api_errors_total", "counter", "Calls to the SealTrust API that failed, since the daemon started.")
        if let errors = counters?["api_errors"]?.integerValue, errors >= 0 { out.sample("sealtrust_api_errors_total", [], Double(errors)) }
        out.family("sealtrust_source_up", "gauge", "Whether each reader or camera is ready.")
        for source in known.sources.arrayValue ?? [] {
            guard let id = source["id"]?.stringValue else { continue }
            out.sample("sealtrust_source_up", [("id", id), ("medium", source["medium"]?.stringValue ?? "")],
                       source["state"]?.stringValue == "ready" ? 1 : 0)
        }
        out.family("sealtrust_clients", "gauge", "Clients of the daemon's socket, this bridge included.")
        if let clients = known.status?["clients"]?.integerValue, clients >= 0 { out.sample("sealtrust_clients", [], Double(clients)) }
        out.family("sealtrust_journal_last_seq", "gauge", "The newest journaled event's seq.")
        if let last = known.status?["last_seq"]?.integerValue, last >= 0 { out.sample("sealtrust_journal_last_seq", [], Double(last)) }

        out.family("sealtrust_verdict_latency_seconds", "histogram", "From the read to the verdict, as the verdicts say.")
        for (index, bound) in LatencyHistogram.bounds.enumerated() {
            out.sample("sealtrust_verdict_latency_seconds_bucket", [("le", String(bound))], Double(known.latency.counts[index]))
        }
        out.sample("sealtrust_verdict_latency_seconds_bucket", [("le", "+Inf")], Double(known.latency.total))
        out.sample("sealtrust_verdict_latency_seconds_sum", [], known.latency.sumSeconds)
        out.sample("sealtrust_verdict_latency_seconds_count", [], Double(known.latency.total))
        return out.text
    }
}
