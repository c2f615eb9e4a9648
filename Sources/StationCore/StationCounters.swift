import JSONCore
import SealTrustKit
import StationWire

/// What `status` and the systemd status line count.
struct StationCounters: Sendable {
    private(set) var scans = 0
    private var scansByMedium: [Medium: Int] = [:]
    private var readErrors: [ReadErrorReason: Int] = [:]
    private var verdicts: [Outcome: Int] = [:]
    private var apiErrors = 0
    private(set) var lastAPIError: String?
    /// `status`'s `last_api_error`: when, and what went wrong.
    private(set) var lastAPIErrorJSON: JSON?

    mutating func countScan(by medium: Medium) {
        scans += 1
        scansByMedium[medium, default: 0] += 1
    }

    mutating func countReadError(_ reason: ReadErrorReason) {
        readErrors[reason, default: 0] += 1
    }

    /// `apiError`: the API's error behind the verdict; `timestamp`: when the verdict came, as RFC 3339 text.
    mutating func count(_ verdict: VerdictEvent, apiError: SealTrustError?, at timestamp: () -> String) {
        verdicts[verdict.outcome, default: 0] += 1
        // A `deferred` verdict is an API error too: the call found the API unreachable.
        if verdict.outcome == .failure || verdict.outcome == .deferred, apiError != nil {
            apiErrors += 1
            lastAPIError = verdict.logSummary(error: apiError)
            var fields: [(String, JSON)] = [("at", .string(timestamp()))]
            if let report = verdict.error {
                fields.append(("kind", .string(report.kind.rawValue)))
                if let cause = report.cause { fields.append(("cause", .string(cause.rawValue))) }
                let status = report.httpStatus.map { "HTTP \($0)" }
                if let detail = [status, report.detail].compactMap({ $0 }).joined(separator: ": ").nonEmpty {
                    fields.append(("detail", .string(detail)))
                }
            }
            lastAPIErrorJSON = .object(fields)
        }
    }

    /// Every medium, outcome and reason is listed, zero included, in the protocol's order: a scraper (the kiosk's
    /// `/metrics`) gets the daemon's counts since it started, not what a bridge happened to see.
    var json: JSON {
        .object([
            ("scans", .int(Int64(scans))),
            ("scans_by_medium", .object(Medium.allCases.map { ($0.rawValue, .int(Int64(scansByMedium[$0] ?? 0))) })),
            ("verdicts", .object(Outcome.allCases.map { ($0.rawValue, .int(Int64(verdicts[$0] ?? 0))) })),
            ("api_errors", .int(Int64(apiErrors))),
            ("read_errors", .object(ReadErrorReason.allCases.map { ($0.rawValue, .int(Int64(readErrors[$0] ?? 0))) })),
        ])
    }
}

private extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
