import SealTrustKit

/// The chip scans that wait for the API under `on-api-outage = defer`, oldest first: those given `deferred`, and the
/// new taps that came while the deferred ones were being verified (they wait their turn, with no verdict yet). Each
/// goes to the API one at a time, from the head: a chip read later never reaches the API before an earlier read.
struct DeferredQueue: Sendable {
    enum State: Sendable, Equatable {
        /// A new tap behind the deferred ones: no verdict yet; its answer is an ordinary verdict.
        case waiting
        /// Its `deferred` verdict is being journaled; its seq is not known yet.
        case deferring
        /// Its `deferred` verdict is journaled at `seq`: its answer is a late verdict naming that seq.
        case deferred(seq: UInt64)
    }

    struct Entry: Sendable {
        let call: StationCall
        var state: State
        /// When it was read, on the core's clock (for a scan kept across a restart: its `at`, brought to that clock).
        let readAt: ContinuousClock.Instant
        /// What kept it from the API first: said again when it ends without reaching it.
        var reason: SealTrustError?
        /// Its `scan`'s seq, once journaled: the journal keeps that line (its proof) until the scan has its answer.
        var scanSeq: UInt64?
    }

    private(set) var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }
    var head: Entry? { entries.first }
    /// Those given `deferred` (or being given it): what `status` counts.
    var deferredCount: Int { entries.count { $0.state != .waiting } }
    var oldestDeferred: Entry? { entries.first { $0.state != .waiting } }

    func contains(_ scanID: String) -> Bool { entries.contains { $0.call.scanID == scanID } }

    func entry(_ scanID: String) -> Entry? { entries.first { $0.call.scanID == scanID } }

    /// Keeps the queue in the order the scans were read: a scan deferred after a later one (their calls were out
    /// together) still goes before it.
    mutating func add(_ entry: Entry) {
        let index = entries.lastIndex { $0.readAt <= entry.readAt }.map { $0 + 1 } ?? 0
        entries.insert(entry, at: index)
    }

    mutating func update(_ scanID: String, _ change: (inout Entry) -> Void) {
        guard let index = entries.firstIndex(where: { $0.call.scanID == scanID }) else { return }
        change(&entries[index])
    }

    @discardableResult
    mutating func remove(_ scanID: String) -> Entry? {
        guard let index = entries.firstIndex(where: { $0.call.scanID == scanID }) else { return nil }
        return entries.remove(at: index)
    }

    /// The oldest journaled `scan` line a deferred scan still needs.
    var oldestScanSeq: UInt64? { entries.filter { $0.state != .waiting }.compactMap(\.scanSeq).min() }

    /// The scans waiting their turn, oldest first.
    var waiting: [Entry] { entries.filter { $0.state == .waiting } }
}
