import JSONCore
import SealTrustKit
import StationWire

/// A scan's `verdict` event, from the kit's reading of the API's answer, in the words of the settings the scan was
/// taken under (socket-protocol.md).
extension VerdictEvent {
    /// A chip's verdict.
    init(chip outcome: ScanOutcome, of call: StationCall, latencyMilliseconds: Int64) {
        let texts = call.settings.texts
        self.init(call, outcome: outcome.verdict, latencyMilliseconds: latencyMilliseconds)
        productName = outcome.verification?.productName
        brand = outcome.verification?.brand
        identifier = outcome.verification?.identifier
        gtin = outcome.verification?.gtin
        seal = outcome.seal.map(VerdictEvent.Seal.init)
        // No answer, no word on theft; an authentic answer always says whether a theft is reported.
        theftReported = outcome.verdict == .authentic ? (outcome.theftReported ?? false) : outcome.theftReported
        scanArea = outcome.scanArea.map { VerdictEvent.ScanArea(city: $0.city, country: $0.country) }
        retryAfterSeconds = outcome.retryAfterSeconds
        error = outcome.error.flatMap(APIErrorReport.init)
        let warnings = [texts.sealText(for: outcome.seal), theftReported == true ? texts.theftWarning : nil]
        message = ([texts.message(for: outcome.verdict, retryAfterSeconds: retryAfterSeconds)] + warnings.compactMap { $0 })
            .joined(separator: " ")
        // A chip's verify carries no token (sealtrust-api.md): a 401 or 403 to it is no word on the station's token.
    }

    /// A printed serial's or a product reference's verdict: the passport served.
    init(passport: Passport, ofModel: Bool, of call: StationCall, latencyMilliseconds: Int64) {
        self.init(call, outcome: .identified, latencyMilliseconds: latencyMilliseconds)
        productName = passport.productName
        brand = passport.brand
        identifier = passport.identifier
        gtin = passport.gtin
        accessTier = passport.accessTier
        if ofModel { message = call.settings.texts.productReferenceNotice }
    }

    /// A passport read that failed: 404 is `not_found`, 429 `too_many_calls`, the rest `failure`.
    init(passportError failure: SealTrustError, of call: StationCall, latencyMilliseconds: Int64) {
        let outcome: Outcome = switch failure {
        case .api(status: 404, _, _, _): .notFound
        case .tooManyCalls, .api(status: 429, _, _, _): .tooManyCalls
        default: .failure
        }
        self.init(call, outcome: outcome, latencyMilliseconds: latencyMilliseconds)
        error = APIErrorReport(failure)
        if outcome == .tooManyCalls {
            retryAfterSeconds = failure.retryAfterSeconds
            message = call.settings.texts.tooManyCalls(wait: failure.retryAfterSeconds)
        }
        if outcome == .failure, Self.refusesCredentials(failure) { message = call.settings.messages.credentialsRefused }
    }

    /// Something that is not a SealTrust code: answered without a call.
    init(foreignOf call: StationCall, latencyMilliseconds: Int64) {
        self.init(call, outcome: .notSealTrust, latencyMilliseconds: latencyMilliseconds)
    }

    /// The verdict on `call`'s scan, with the outcome's own sentence.
    private init(_ call: StationCall, outcome: Outcome, latencyMilliseconds: Int64) {
        self.init(scanID: call.scanID, source: call.read.source, medium: call.read.medium, outcome: outcome,
                  message: call.settings.texts.message(for: outcome), latencyMilliseconds: latencyMilliseconds)
        requestID = call.requestID
        lane = call.settings.laneBySource[call.read.source]
    }

    /// 401 or 403: the station's token was refused, which no new scan can mend.
    private static func refusesCredentials(_ error: SealTrustError?) -> Bool {
        error?.httpStatus == 401 || error?.httpStatus == 403
    }

    /// Short words for the log line, with the API's error behind the verdict; never a token.
    func logSummary(error: SealTrustError?) -> String {
        var summary = outcome.rawValue
        if let productName { summary += " (\(productName))" }
        if let error, let kind = error.kind {
            let qualifier = error.httpStatus.map { " \($0)" } ?? error.cause.map { " \($0.rawValue)" } ?? ""
            summary += " [\(kind)\(qualifier)\(error.detailText.map { ": \($0)" } ?? "")]"
        }
        if let asked = error?.retryAfterRequested, let wait = retryAfterSeconds {
            summary += " (Retry-After asked \(asked) s; obeyed for \(wait) s)"
        }
        return summary
    }
}

extension VerdictEvent.Seal {
    init(_ display: SealDisplay) {
        self.init(status: display.status == .opened ? .opened : .intact, policy: display.policy == .degrade ? .degrade : .inform)
    }
}

extension APIErrorReport {
    /// The contract's error, as the verdict's `error` object; nil for a local refusal, which is not one of the five kinds.
    init?(_ error: SealTrustError) {
        let kind: Kind
        switch error {
        case .invalidScanAddress: kind = .invalidScanAddress
        case .notAuthenticated: kind = .notAuthenticated
        case .api: kind = .api
        case .decoding: kind = .decoding
        case .transport: kind = .transport
        case .tooManyCalls: return nil
        }
        self.init(kind: kind, httpStatus: error.httpStatus, code: error.code,
                  cause: error.cause.flatMap { Cause(rawValue: $0.rawValue) }, detail: error.detailText)
    }
}
