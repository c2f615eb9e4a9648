import ScanJournal
import SealTrustKit

/// One scan's answer, as the `verdict` event carries it (socket-protocol.md).
struct Verdict: Sendable {
    var outcome: String
    var productName: String?
    var brand: String?
    var identifier: String?
    var gtin: String?
    var accessTier: String?
    var seal: SealDisplay?
    var theftReported: Bool?
    var scanArea: ScanArea?
    var retryAfterSeconds: Int?
    var error: SealTrustError?
    var message: String

    /// A technical failure the status line and counters report as an API error.
    var isAPIError: Bool { outcome == "failure" && error != nil }

    /// A chip's verdict, from the kit's reading of the answer.
    init(chip outcome: ScanOutcome, texts: ScreenTexts) {
        self.outcome = outcome.verdict.rawValue
        productName = outcome.verification?.productName
        brand = outcome.verification?.brand
        identifier = outcome.verification?.identifier
        gtin = outcome.verification?.gtin
        seal = outcome.seal
        theftReported = outcome.verdict == .authentic ? (outcome.theftReported ?? false) : outcome.theftReported
        scanArea = outcome.scanArea
        retryAfterSeconds = outcome.retryAfterSeconds
        error = outcome.error
        let warnings = [texts.sealText(for: outcome.seal), theftReported == true ? texts.theftWarning : nil]
        message = ([texts.message(for: outcome.verdict)] + warnings.compactMap { $0 }).joined(separator: " ")
    }

    /// A printed serial's or a product reference's verdict: the passport served.
    init(passport: Passport, ofModel: Bool, texts: ScreenTexts) {
        outcome = "identified"
        productName = passport.productName
        brand = passport.brand
        identifier = passport.identifier
        gtin = passport.gtin
        accessTier = passport.accessTier
        message = ofModel ? texts.productReferenceNotice : texts.printedSerialNotice
    }

    /// A passport read that failed: 404 is `not_found`, 429 `too_many_calls`, the rest `failure`.
    init(passportError: any Error, texts: ScreenTexts, messages: StationMessages) {
        let error = SealTrustError.from(passportError)
        self.error = error
        switch error {
        case .api(status: 404, _, _, _):
            outcome = "not_found"
            message = messages.notFound
        case .tooManyCalls, .api(status: 429, _, _, _):
            outcome = ScanOutcome.Verdict.tooManyCalls.rawValue
            retryAfterSeconds = error.retryAfterSeconds
            message = texts.message(for: .tooManyCalls)
        default:
            outcome = ScanOutcome.Verdict.failure.rawValue
            message = texts.message(for: .failure)
        }
    }

    /// Something that is not a SealTrust code: answered without a call.
    init(foreignWith texts: ScreenTexts) {
        outcome = "not_sealtrust"
        message = texts.notSealTrust
    }

    /// The fields after `scan_id`, `source` and `medium`, each only when known.
    var eventFields: [(String, JSON)] {
        var fields: [(String, JSON)] = [("outcome", .string(outcome))]
        if let productName { fields.append(("product_name", .string(productName))) }
        if let brand { fields.append(("brand", .string(brand))) }
        if let identifier { fields.append(("identifier", .string(identifier))) }
        if let gtin { fields.append(("gtin", .string(gtin))) }
        if let accessTier { fields.append(("access_tier", .string(accessTier))) }
        if let seal {
            fields.append(("seal", .object([("status", .string(seal.status.rawValue)), ("policy", .string(seal.policy.rawValue))])))
        }
        if let theftReported { fields.append(("theft_reported", .bool(theftReported))) }
        if let scanArea {
            var area: [(String, JSON)] = []
            if let city = scanArea.city { area.append(("city", .string(city))) }
            if let country = scanArea.country { area.append(("country", .string(country))) }
            fields.append(("scan_area", .object(area)))
        }
        if let retryAfterSeconds { fields.append(("retry_after_s", .int(Int64(retryAfterSeconds)))) }
        if let error, let kind = error.kind {
            var details: [(String, JSON)] = [("kind", .string(kind))]
            if let status = error.httpStatus { details.append(("http_status", .int(Int64(status)))) }
            if case .api(_, _, let code?, _) = error { details.append(("code", .string(code))) }
            if let cause = error.cause { details.append(("cause", .string(cause.rawValue))) }
            if let detail = error.detailText { details.append(("detail", .string(detail))) }
            fields.append(("error", .object(details)))
        }
        fields.append(("message", .string(message)))
        return fields
    }

    /// Short words for the log line; never a token.
    var logSummary: String {
        var summary = outcome
        if let productName { summary += " (\(productName))" }
        if let error, let kind = error.kind {
            let qualifier = error.httpStatus.map { " \($0)" } ?? error.cause.map { " \($0.rawValue)" } ?? ""
            summary += " [\(kind)\(qualifier)\(error.detailText.map { ": \($0)" } ?? "")]"
        }
        return summary
    }
}
