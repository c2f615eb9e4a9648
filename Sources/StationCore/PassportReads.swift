import SealTrustKit
import StationWire

/// What the API answered to each read of a `passport` command; nil: not asked, or not read because the passport was
/// not found.
struct PassportReads: Sendable {
    var passport: Result<Passport, SealTrustError>?
    var proof: Result<ProofBundle, SealTrustError>?
    var certificate: Result<Certificate, SealTrustError>?
    var history: Result<[HistoryEvent], SealTrustError>?
    /// The identifier the certificate was read by, from which its PDF's address is built (never fetched).
    var certificateIdentifier: String?
    /// Read from the whole history before it is bounded: a theft report no later recovery closes.
    var historyTheftOpen = false
    /// History entries and passport fields that `bounded()` left out.
    var historyLeftOut = 0
    var fieldsLeftOut = 0

    /// Reads the parts asked of `product` through `api`, one after the other on this thread (a call thread): the
    /// passport first, so that a product the API does not know costs one call, and the other reads use the identifier
    /// it gives. A model has no certificate and no history.
    static func read(_ product: ProductSubject, tier: AccessTier, parts: Set<PassportPart>, from api: any StationAPI) -> PassportReads {
        var reads = PassportReads()
        switch product {
        case .item(var identifier):
            if parts.contains(.passport) {
                api.passport(identifier: identifier, tier: tier, for: .productRead) { reads.passport = $0.mapError(SealTrustError.from) }
                if reads.passport?.failure?.httpStatus == 404 { return reads }
                if let known = try? reads.passport?.get().identifier, !known.isEmpty { identifier = known }
            }
            if parts.contains(.proof) {
                api.passportProof(identifier: identifier) { reads.proof = $0.mapError(SealTrustError.from) }
            }
            if parts.contains(.certificate) {
                api.certificate(identifier: identifier) { reads.certificate = $0.mapError(SealTrustError.from) }
                reads.certificateIdentifier = identifier
            }
            if parts.contains(.history) {
                api.history(identifier: identifier) { reads.history = $0.mapError(SealTrustError.from) }
            }
        case .model(let gtin):
            if parts.contains(.passport) {
                api.referencePassport(gtin: gtin, for: .productRead) { reads.passport = $0.mapError(SealTrustError.from) }
                if reads.passport?.failure?.httpStatus == 404 { return reads }
            }
            if parts.contains(.proof) {
                api.referencePassportProof(gtin: gtin) { reads.proof = $0.mapError(SealTrustError.from) }
            }
        }
        return reads
    }

    /// Every read asked came back: an answer worth keeping for the next minute.
    var isComplete: Bool {
        [passport?.failure, proof?.failure, certificate?.failure, history?.failure].allSatisfy { $0 == nil }
    }
}

extension Result {
    var failure: Failure? {
        guard case .failure(let error) = self else { return nil }
        return error
    }
}
