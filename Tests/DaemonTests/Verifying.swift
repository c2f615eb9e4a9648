import JSONCore
import ScanJournal
import TestSupport

/// A `verify` and what came back for it: its `scan` and its `verdict`.
struct VerifiedScan {
    let scan: JSON
    let verdict: JSON
}

extension LineClient {
    /// Submits `raw` as a manual scan and reads until its verdict.
    func verify(_ raw: String, id: String, timeout: Duration = .seconds(20)) throws -> VerifiedScan {
        try send(.object([("cmd", "verify"), ("raw", .string(raw)), ("id", .string(id))]))
        var seen: [JSON] = []
        guard let scan = try next(timeout: timeout, seen: &seen, where: { $0["type"]?.string == "scan" && $0["request_id"]?.string == id }),
              let scanID = scan["scan_id"]?.string
        else { throw HarnessError("no scan event for verify \(id); saw \(seen.map { $0.encoded() })") }
        guard let verdict = try next(timeout: timeout, seen: &seen, where: { $0["type"]?.string == "verdict" && $0["scan_id"]?.string == scanID })
        else { throw HarnessError("no verdict for verify \(id); saw \(seen.map { $0.encoded() })") }
        return VerifiedScan(scan: scan, verdict: verdict)
    }
}

extension JSON {
    /// The keys of an object, in order.
    var keys: [String] { objectValue?.map(\.0) ?? [] }

    var bool: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }
}
