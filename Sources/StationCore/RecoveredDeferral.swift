import JSONCore
import ScanJournal
import StationWire

/// A chip scan the journal holds as deferred at start: its `scan`, and the seq of its `deferred` verdict, with no
/// late verdict naming that seq yet.
struct RecoveredDeferral: Sendable {
    let scanID: String
    /// Its `raw` exactly as journaled, read at its `at` brought to the core's clock.
    let read: ScanRead
    let requestID: JSON?
    let scanSeq: UInt64
    let deferredSeq: UInt64
    /// Its proof was being presented when the daemon stopped (the mark names it): it is never sent again.
    let interrupted: Bool
    /// Its `scan` line is no longer in the journal (its proof with it): `read` is its `deferred` verdict's, `raw` empty.
    var proofLost = false

    /// The deferred scans in `journal` (read from its retention floor), oldest first; `presenting`: the deferred seq
    /// the mark names. `nowMilliseconds` (the wall clock) and `now` bring each scan's `at` to the core's clock.
    ///
    /// Every start reads this part of the journal: first only the lines that name a deferred verdict, found by their
    /// text before any is parsed; the scans' lines only when something is still deferred.
    static func read(_ journal: Journal, presenting: UInt64?, nowMilliseconds: Int64, now: ContinuousClock.Instant) throws
        -> [RecoveredDeferral] {
        let start = journal.keptOrRecentStart - 1
        var deferred: [(scanID: String, seq: UInt64, read: ScanRead, requestID: JSON?)] = []
        var answered = Set<UInt64>()
        try forEach(in: journal, after: start) { event in
            guard event.type == "verdict", event.line.contains("\"deferred"), let json = try? JSON.parse(event.line),
                  let scanID = json["scan_id"]?.stringValue else { return }
            if json["outcome"] == .string(Outcome.deferred.rawValue) {
                let at = json["at"]?.stringValue.flatMap(EventTime.milliseconds) ?? nowMilliseconds
                let read = ScanRead(raw: "", source: json["source"]?.stringValue ?? "", medium: json["medium"]?.stringValue.flatMap(Medium.init) ?? .manual,
                                    readAt: now - .milliseconds(max(0, nowMilliseconds - at)))
                deferred.append((scanID, event.seq, read, json["request_id"]))
            } else if json["late"] == .bool(true), let seq = json["deferred_seq"]?.integerValue, seq > 0 {
                answered.insert(UInt64(seq))
            }
        }
        let pending = deferred.filter { !answered.contains($0.seq) }
        guard !pending.isEmpty else { return [] }
        let wanted = Set(pending.map(\.scanID))
        var scans: [String: (read: ScanRead, requestID: JSON?, seq: UInt64)] = [:]
        try forEach(in: journal, after: start) { event in
            // Only a chip's scan can be deferred.
            guard event.type == "scan", event.line.contains("\"chip\""), let json = try? JSON.parse(event.line),
                  let scanID = json["scan_id"]?.stringValue, wanted.contains(scanID),
                  json["code"] == .string(CodeKind.chip.rawValue), let raw = json["raw"]?.stringValue,
                  let source = json["source"]?.stringValue, let medium = json["medium"]?.stringValue.flatMap(Medium.init),
                  let at = json["at"]?.stringValue.flatMap(EventTime.milliseconds) else { return }
            let readAt = now - .milliseconds(max(0, nowMilliseconds - at))
            scans[scanID] = (ScanRead(raw: raw, source: source, medium: medium, readAt: readAt), json["request_id"], event.seq)
        }
        return pending.map { entry in
            guard let scan = scans[entry.scanID] else {
                var lost = RecoveredDeferral(scanID: entry.scanID, read: entry.read, requestID: entry.requestID, scanSeq: entry.seq,
                                             deferredSeq: entry.seq, interrupted: entry.seq == presenting)
                lost.proofLost = true
                return lost
            }
            return RecoveredDeferral(scanID: entry.scanID, read: scan.read, requestID: scan.requestID, scanSeq: scan.seq,
                                     deferredSeq: entry.seq, interrupted: entry.seq == presenting)
        }
    }

    private static func forEach(in journal: Journal, after seq: UInt64, _ body: (JournaledEvent) -> Void) throws {
        var cursor = try journal.cursor(after: seq)
        while true {
            let events = try cursor.next()
            if events.isEmpty { return }
            events.forEach(body)
        }
    }
}
