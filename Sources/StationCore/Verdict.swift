import JSONCore
import SealTrustKit
import StationWire

/// One scan's answer, from the kit's reading of the API, in the wire's terms (socket-protocol.md).
struct Verdict: Sendable {
    var outcome: Outcome
    var productName: String?
    var brand: String?
    var identifier: String?
    var gtin: String?
    var accessTier: String?
    var seal: VerdictEvent.Seal?
    var theftReported: Bool?
    var scanArea: VerdictEvent.ScanArea?
    var retryAfterSeconds: Int?
    var error: SealTrustError?
    var message: String

    /// A technical failure the status line and counters report as an API error.
    var isAPIError: Bool { outcome == .failure && error != nil }

    /// A chip's verdict, from the kit's reading of the answer.
    init(chip outcome: ScanOutcome, texts: ScreenTexts, messages: StationMessages) {
        self.outcome = Outcome(outcome.verdict)
        productName = outcome.verification?.productName
        brand = outcome.verification?.brand
        identifier = outcome.verification?.identifier
        gtin = outcome.verification?.gtin
        seal = outcome.seal.map(VerdictEvent.Seal.init)
        theftReported = outcome.verdict == .authentic ? (outcome.theftReported ?? false) : outcome.theftReported
        scanArea = outcome.scanArea.map { VerdictEvent.ScanArea(city: $0.city, country: $0.country) }
        retryAfterSeconds = outcome.retryAfterSeconds
        error = outcome.error
        let warnings = [texts.sealText(for: outcome.seal), theftReported == true ? texts.theftWarning : nil]
        message = ([texts.message(for: outcome.verdict)] + warnings.compactMap { $0 }).joined(separator: " ")
        if Self.refusesCredentials(error) { message = messages.credentialsRefused }
    }

    /// 401 or 403: the station's token was refused, which no new scan can mend.
    private static func refusesCredentials(_ error: SealTrustError?) -> Bool {
        error?.httpStatus == 401 || error?.httpStatus == 403
    }

    /// A printed serial's or a product reference's verdict: the passport served.
    init(passport: Passport, ofModel: Bool, texts: ScreenTexts) {
        outcome = .identified
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
            outcome = .notFound
            message = messages.notFound
        case .tooManyCalls, .api(status: 429, _, _, _):
            outcome = .tooManyCalls
            retryAfterSeconds = error.retryAfterSeconds
            message = texts.message(for: .tooManyCalls)
        default:
            outcome = .failure
            message = Self.refusesCredentials(error) ? messages.credentialsRefused : texts.message(for: .failure)
        }
    }

    /// Something that is not a SealTrust code: answered without a call.
    init(foreignWith texts: ScreenTexts) {
        outcome = .notSealTrust
        message = texts.notSealTrust
    }

    /// The `verdict` event for the scan `scanID`.
    func event(scanID: String, source: String, medium: Medium, requestID: JSON?, latencyMilliseconds: Int64) -> VerdictEvent {
        var event = VerdictEvent(scanID: scanID, source: source, medium: medium, outcome: outcome, message: message,
                                 latencyMilliseconds: latencyMilliseconds)
        event.productName = productName
        event.brand = brand
        event.identifier = identifier
        event.gtin = gtin
        event.accessTier = accessTier
        event.seal = seal
        event.theftReported = theftReported
        event.scanArea = scanArea
        event.retryAfterSeconds = retryAfterSeconds
        event.error = error.flatMap(APIErrorReport.init)
        event.requestID = requestID
        return event
    }

    /// Short words for the log line; never a token.
    var logSummary: String {
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

extension Outcome {
    init(_ verdict: ScanOutcome.Verdict) {
        self = switch verdict {
        case .authentic: .authentic
        case .replay: .replay
        case .invalidSignature: .invalidSignature
        case .mintingInProgress: .mintingInProgress
        case .neverRegistered: .neverRegistered
        case .unreadableLink: .unreadableLink
        case .tooManyCalls: .tooManyCalls
        case .failure: .failure
        }
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
