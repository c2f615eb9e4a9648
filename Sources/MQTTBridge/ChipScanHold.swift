import JSONCore
import StationWire

/// Holds a chip's `scan` back until the daemon has journaled that scan's first verdict (outputs.md): its URL is a
/// one-time proof until the API has answered it, and whoever reads the broker could spend it first, so that the
/// buyer's genuine chip would then read as a replay. The events behind a held scan wait with it, so everything still
/// goes out in seq order.
///
/// A first verdict `deferred` (the daemon's `on-api-outage`) leaves the proof unanswered: the scan goes out without
/// `raw`, with `"raw_withheld":true`. So does a scan whose verdict cannot be waited for any longer: one read more
/// than `timeLimit` ago (the daemon stopped during its call, and no verdict will ever come), or one with more than
/// `byteLimit` of events behind it. Either way the URL never leaves before its answer.
struct ChipScanHold: Sendable {
    /// What goes out, in seq order: an event's line (as journaled, or the scan without its URL), or seqs that the
    /// daemon's retention removed.
    enum Release: Equatable, Sendable {
        case event(seq: UInt64, type: MessageType, line: String)
        case lost(ClosedRange<UInt64>)
    }

    /// The daemon's longest `--api-timeout` (300 s) and a margin: a call still out after this has ended without a verdict.
    static let timeLimit: Int64 = 330
    /// What may wait behind one held scan: a full station's events of a few minutes, well within the bridge's memory.
    static let byteLimit = 1 << 20

    private enum Hold: Sendable {
        /// A chip scan whose first verdict has not come; released without its URL after `deadline` (seconds since the epoch).
        case waiting(scanID: String, deadline: Int64)
        case answered(outcome: String)
        /// A chip scan that cannot be matched to a verdict (no `scan_id`, or one already held): never with its URL.
        case unmatched
    }

    private struct Entry: Sendable {
        var release: Release
        var hold: Hold?
    }

    private var entries: [Entry] = []
    private var head = 0
    /// The held scans by `scan_id`, at their position counted from the first entry ever taken (`taken`).
    private var waiting: [String: UInt64] = [:]
    private var dropped: UInt64 = 0
    private var bytes = 0
    /// The newest seq taken: an older one means the feed was followed again from an earlier seq.
    private(set) var lastSeq: UInt64 = 0

    init() {}

    /// When the scan at the front can wait no longer (seconds since the epoch); nil when nothing is held.
    var deadline: Int64? {
        guard head < entries.count, case .waiting(_, let deadline)? = entries[head].hold else { return nil }
        return deadline
    }

    var isEmpty: Bool { head == entries.count }

    /// Takes the next event from the daemon, its line as sent and as read; returns what may go out now. `now`: seconds
    /// since the epoch.
    mutating func take(line: String, json: JSON, seq: UInt64, now: Int64) -> [Release] {
        if seq <= lastSeq { reset() }
        lastSeq = seq
        let type = MessageType(of: json) ?? .unknown("")
        var hold: Hold?
        if type == .event(.scan), json["code"]?.stringValue == CodeKind.chip.rawValue {
            if let scanID = json["scan_id"]?.stringValue, waiting[scanID] == nil {
                let readAt = json["at"]?.stringValue.flatMap(EventTime.milliseconds).map { $0 / 1_000 } ?? now
                hold = .waiting(scanID: scanID, deadline: min(readAt, now) + Self.timeLimit)
                waiting[scanID] = dropped + UInt64(entries.count)
            } else {
                hold = .unmatched
            }
        } else if type == .event(.verdict), let scanID = json["scan_id"]?.stringValue,
                  let position = waiting.removeValue(forKey: scanID) {
            entries[Int(position - dropped)].hold = .answered(outcome: json["outcome"]?.stringValue ?? "")
        }
        entries.append(Entry(release: .event(seq: seq, type: type, line: line), hold: hold))
        bytes += line.utf8.count
        return release(now: now)
    }

    /// Seqs the daemon's retention removed, in their place among the events.
    mutating func take(lost range: ClosedRange<UInt64>, now: Int64) -> [Release] {
        if range.lowerBound <= lastSeq { reset() }
        lastSeq = range.upperBound
        entries.append(Entry(release: .lost(range)))
        return release(now: now)
    }

    /// What may go out now: the entries up to the first scan that still waits for its verdict and may wait on.
    mutating func release(now: Int64) -> [Release] {
        var out: [Release] = []
        while head < entries.count {
            let entry = entries[head]
            switch entry.hold {
            case .waiting(let scanID, let deadline)?:
                guard now >= deadline || bytes > Self.byteLimit else { return compacted(out) }
                waiting[scanID] = nil
                out.append(Self.withoutURL(entry.release))
            case .answered(let outcome)?:
                out.append(outcome == "deferred" ? Self.withoutURL(entry.release) : entry.release)
            case .unmatched?:
                out.append(Self.withoutURL(entry.release))
            case nil:
                out.append(entry.release)
            }
            if case .event(_, _, let line) = entry.release { bytes -= line.utf8.count }
            head += 1
        }
        return compacted(out)
    }

    /// Forgets everything held: the feed is followed again from an earlier seq, which brings it all again.
    mutating func reset() {
        dropped += UInt64(entries.count)
        entries.removeAll()
        head = 0
        waiting.removeAll()
        bytes = 0
        lastSeq = 0
    }

    private mutating func compacted(_ out: [Release]) -> [Release] {
        if head == entries.count {
            dropped += UInt64(entries.count)
            entries.removeAll(keepingCapacity: entries.count <= 64)
            head = 0
        } else if head >= 1_024 {
            dropped += UInt64(head)
            entries.removeFirst(head)
            head = 0
        }
        return out
    }

    /// The scan without its URL: `raw` left out, `"raw_withheld":true` added.
    private static func withoutURL(_ release: Release) -> Release {
        guard case .event(let seq, let type, let line) = release else { return release }
        // The daemon's line was read as a JSON object already; the fallback only keeps this total.
        let members = (try? JSON.parse(line))?.objectValue ?? [("type", .string(type.name)), ("seq", .int(Int64(clamping: seq)))]
        let kept = members.filter { $0.0 != "raw" } + [("raw_withheld", JSON.bool(true))]
        return .event(seq: seq, type: type, line: JSON.object(kept).encoded())
    }
}
