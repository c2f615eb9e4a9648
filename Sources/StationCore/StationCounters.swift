import JSONCore
import ScanJournal
import StationWire
import Synchronization

/// What `status` and the systemd status line count.
final class StationCounters: Sendable {
    private struct Counts {
        var scans = 0
        var scansByMedium: [Medium: Int] = [:]
        var readErrors: [ReadErrorReason: Int] = [:]
        var verdicts: [Outcome: Int] = [:]
        var apiErrors = 0
        var lastAPIError: String?
        /// `status`'s `last_api_error`: when, and what went wrong.
        var lastAPIErrorJSON: JSON?
    }

    private let counts = Mutex(Counts())

    func countScan(by medium: Medium) {
        counts.withLock { counts in
            counts.scans += 1
            counts.scansByMedium[medium, default: 0] += 1
        }
    }

    func countReadError(_ reason: ReadErrorReason) {
        counts.withLock { $0.readErrors[reason, default: 0] += 1 }
    }

    func count(_ verdict: Verdict) {
        counts.withLock { counts in
            counts.verdicts[verdict.outcome, default: 0] += 1
            if verdict.isAPIError {
                counts.apiErrors += 1
                counts.lastAPIError = verdict.logSummary
                var fields: [(String, JSON)] = [("at", .string(Timestamp.now().text))]
                if let report = verdict.error.flatMap(APIErrorReport.init) {
                    fields.append(("kind", .string(report.kind.rawValue)))
                    if let cause = report.cause { fields.append(("cause", .string(cause.rawValue))) }
                    let status = report.httpStatus.map { "HTTP \($0)" }
                    if let detail = [status, report.detail].compactMap({ $0 }).joined(separator: ": ").nonEmpty {
                        fields.append(("detail", .string(detail)))
                    }
                }
                counts.lastAPIErrorJSON = .object(fields)
            }
        }
    }

    var scans: Int { counts.withLock { $0.scans } }
    var lastAPIError: String? { counts.withLock { $0.lastAPIError } }
    var lastAPIErrorJSON: JSON? { counts.withLock { $0.lastAPIErrorJSON } }

    /// Every medium, outcome and reason is listed, zero included, in the protocol's order: a scraper (the kiosk's
    /// `/metrics`) gets the daemon's counts since it started, not what a bridge happened to see.
    var json: JSON {
        counts.withLock { counts in
            .object([
                ("scans", .int(Int64(counts.scans))),
                ("scans_by_medium", .object(Medium.allCases.map { ($0.rawValue, .int(Int64(counts.scansByMedium[$0] ?? 0))) })),
                ("verdicts", .object(Outcome.allCases.map { ($0.rawValue, .int(Int64(counts.verdicts[$0] ?? 0))) })),
                ("api_errors", .int(Int64(counts.apiErrors))),
                ("read_errors", .object(ReadErrorReason.allCases.map { ($0.rawValue, .int(Int64(counts.readErrors[$0] ?? 0))) })),
            ])
        }
    }
}

private extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
