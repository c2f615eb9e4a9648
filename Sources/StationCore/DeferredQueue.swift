import SealTrustKit

/// The chip scans that wait for the API under `on-api-outage = defer`, oldest first: those given `deferred`, and the
/// new taps that came while the deferred ones were being verified (they wait their turn, with no verdict yet). Each
/// goes to the API one at a time, from the head: a chip read later never reaches the API before an earlier read.
///
/// A day's outage at a busy dock is hundreds of thousands of scans: every operation an input makes is about the
/// head, the tail or one scan by its id, never a walk through the whole queue.
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

    /// Scan ids in the order they were read, from `start`; an id no longer in `byID` is a gap skipped over.
    private var order: [String] = []
    private var start = 0
    private var byID: [String: Entry] = [:]
    /// Those given `deferred` (or being given it): what `status` counts.
    private(set) var deferredCount = 0

    var isEmpty: Bool { byID.isEmpty }

    var head: Entry? { first { _ in true } }

    var oldestDeferred: Entry? { first { $0.state != .waiting } }

    /// The oldest journaled `scan` line a deferred scan still needs: the least seq among the first 64 deferred. Scans
    /// read at nearly the same instant on different threads may be journaled in the other order, never 64 apart.
    var oldestScanSeq: UInt64? {
        var least: UInt64?
        var seen = 0
        for id in order[start...] {
            guard let entry = byID[id], entry.state != .waiting else { continue }
            if let seq = entry.scanSeq { least = min(least ?? seq, seq) }
            seen += 1
            if seen == 64 { break }
        }
        return least
    }

    func contains(_ scanID: String) -> Bool { byID[scanID] != nil }

    func entry(_ scanID: String) -> Entry? { byID[scanID] }

    /// Keeps the queue in the order the scans were read: a scan deferred after a later one (their calls were out
    /// together) still goes before it. Sought from the tail, where a new scan belongs.
    mutating func add(_ entry: Entry) {
        let id = entry.call.scanID
        guard byID[id] == nil else { return }
        var index = order.endIndex
        while index > start, let before = byID[order[index - 1]], before.readAt > entry.readAt { index -= 1 }
        order.insert(id, at: index)
        byID[id] = entry
        if entry.state != .waiting { deferredCount += 1 }
    }

    mutating func update(_ scanID: String, _ change: (inout Entry) -> Void) {
        guard var entry = byID[scanID] else { return }
        let wasDeferred = entry.state != .waiting
        change(&entry)
        deferredCount += (entry.state != .waiting ? 1 : 0) - (wasDeferred ? 1 : 0)
        byID[scanID] = entry
    }

    @discardableResult
    mutating func remove(_ scanID: String) -> Entry? {
        guard let entry = byID.removeValue(forKey: scanID) else { return nil }
        if entry.state != .waiting { deferredCount -= 1 }
        compact()
        return entry
    }

    /// The entries from the head while `include` holds for each seen (those it skips are passed over), oldest first.
    func prefix(while include: (Entry) -> Bool) -> [Entry] {
        var entries: [Entry] = []
        for id in order[start...] {
            guard let entry = byID[id] else { continue }
            guard include(entry) else { break }
            entries.append(entry)
        }
        return entries
    }

    /// The scans waiting their turn, oldest first; they are behind every deferred one but those deferred since.
    var waiting: [Entry] { order[start...].compactMap { byID[$0] }.filter { $0.state == .waiting } }

    private func first(where matches: (Entry) -> Bool) -> Entry? {
        for id in order[start...] {
            if let entry = byID[id], matches(entry) { return entry }
        }
        return nil
    }

    /// Drops the gaps at the head, and the spent part of `order` once it is most of it.
    private mutating func compact() {
        while start < order.endIndex, byID[order[start]] == nil { start += 1 }
        if byID.isEmpty {
            order.removeAll(keepingCapacity: order.count <= 1_024)
            start = 0
        } else if start >= 1_024, start * 2 >= order.count {
            order.removeFirst(start)
            start = 0
        }
    }
}
