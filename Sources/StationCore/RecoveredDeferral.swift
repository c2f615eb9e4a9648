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

    /// The deferred scans in `journal` (read from its retention floor), oldest first; `presenting`: the deferred seq the mark names. `nowMilliseconds`
    /// (the wall clock) and `now` bring each scan's `at` to the core's clock.
    static func read(_ journal: Journal, presenting: UInt64?, nowMilliseconds: Int64, now: ContinuousClock.Instant) throws
        -> [RecoveredDeferral] {
        var scans: [String: (read: ScanRead, requestID: JSON?, seq: UInt64)] = [:]
        var deferred: [(scanID: String, seq: UInt64)] = []
        var answered = Set<UInt64>()
        // From the retention floor, which the last run kept at its oldest deferred scan: not the whole journal.
        var cursor = try journal.cursor(after: journal.keptOrRecentStart - 1)
        while true {
            let events = try cursor.next()
            if events.isEmpty { break }
            for event in events where event.type == "scan" || event.type == "verdict" {
                guard let json = try? JSON.parse(utf8: Array(event.line.utf8)), let scanID = json["scan_id"]?.stringValue else { continue }
                if event.type == "scan" {
                    // Only a chip's scan can be deferred; the others are not kept.
                    guard json["code"] == .string(CodeKind.chip.rawValue), let raw = json["raw"]?.stringValue,
                          let source = json["source"]?.stringValue, let medium = json["medium"]?.stringValue.flatMap(Medium.init),
                          let at = json["at"]?.stringValue.flatMap(EventTime.milliseconds) else { continue }
                    let readAt = now - .milliseconds(max(0, nowMilliseconds - at))
                    scans[scanID] = (ScanRead(raw: raw, source: source, medium: medium, readAt: readAt), json["request_id"], event.seq)
                } else if json["outcome"] == .string(Outcome.deferred.rawValue) {
                    deferred.append((scanID, event.seq))
                } else if json["late"] == .bool(true), let seq = json["deferred_seq"]?.integerValue, seq > 0 {
                    answered.insert(UInt64(seq))
                }
            }
        }
        return deferred.compactMap { entry in
            guard !answered.contains(entry.seq), let scan = scans[entry.scanID] else { return nil }
            return RecoveredDeferral(scanID: entry.scanID, read: scan.read, requestID: scan.requestID, scanSeq: scan.seq, deferredSeq: entry.seq,
                                     interrupted: entry.seq == presenting)
        }
    }
}
