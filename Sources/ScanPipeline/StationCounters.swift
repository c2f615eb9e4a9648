import ScanJournal
import SealTrustKit

/// What `status` and the systemd status line count.
final class StationCounters: Sendable {
    private struct Counts {
        var scans = 0
        var verdicts: [String: Int] = [:]
        var apiErrors = 0
        var lastAPIError: String?
    }

    static let outcomes = ScanOutcome.Verdict.allCases.map(\.rawValue) + ["identified", "not_found", "not_sealtrust"]

    private let counts = LockedValue(Counts())

    func countScan() {
        counts.withLock { $0.scans += 1 }
    }

    func count(_ verdict: Verdict) {
        counts.withLock { counts in
            counts.verdicts[verdict.outcome, default: 0] += 1
            if verdict.isAPIError {
                counts.apiErrors += 1
                counts.lastAPIError = verdict.logSummary
            }
        }
    }

    var scans: Int { counts.withLock { $0.scans } }
    var lastAPIError: String? { counts.withLock { $0.lastAPIError } }

    var json: JSON {
        counts.withLock { counts in
            .object([
                ("scans", .int(Int64(counts.scans))),
                ("verdicts", .object(Self.outcomes.map { ($0, .int(Int64(counts.verdicts[$0] ?? 0))) })),
                ("api_errors", .int(Int64(counts.apiErrors))),
            ])
        }
    }
}
