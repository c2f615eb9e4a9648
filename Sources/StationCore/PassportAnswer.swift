import FoundationEssentials
import JSONCore
import SealTrustKit
import Sentences
import StationWire

/// The fields of a `passport` answer (socket-protocol.md, "What a product is"), in the seed's words and by its rules:
/// anchoring `none` is no information, never "not anchored"; the tier served is the one shown; history is newest
/// first and a kind this station does not know gets a sentence, not an error; each part that failed says so on its
/// own and the others still come; what a buyer must be told comes first, in `warnings`.
enum PassportAnswer {
    /// `publicBase`: the API's public address, from which the certificate's PDF address is built.
    static func fields(of product: ProductContext, requestedTier: AccessTier, reads: PassportReads, texts: ScreenTexts,
                       publicBase: URL) -> [(String, JSON)] {
        var fields: [(String, JSON)] = []
        let passport = try? reads.passport?.get()
        switch product.subject {
        case .item(let identifier):
            fields.append(("identifier", .string(passport?.identifier ?? identifier)))
            fields.append(("requested_tier", .string(requestedTier.rawValue)))
        case .model(let gtin):
            if let identifier = passport?.identifier { fields.append(("identifier", .string(identifier))) }
            fields.append(("gtin", .string(passport?.gtin ?? gtin)))
        }
        if let verdict = product.verdict { fields.append(("verdict", .string(verdict.rawValue))) }
        fields.append(("about", .string(product.about.rawValue)))
        let certificateStatus = try? reads.certificate?.get().status
        let warnings = ItemWarning.of(product, reads: reads)
        fields.append(("warnings", .array(warnings.map { warning in
            .object([("kind", .string(warning.rawValue)),
                     ("message", .string(warning.message(texts, certificateStatus: certificateStatus)))])
        })))
        if let passport {
            if let tier = passport.accessTier { fields.append(("access_tier", .string(tier))) }
            if let name = passport.productName { fields.append(("product_name", .string(name))) }
            if let brand = passport.brand { fields.append(("brand", .string(brand))) }
            if case .item = product.subject, let gtin = passport.gtin { fields.append(("gtin", .string(gtin))) }
            fields.append(("fields", .object(passport.fields.sorted { $0.key < $1.key })))
            if reads.fieldsLeftOut > 0 { fields.append(("fields_left_out", .int(Int64(reads.fieldsLeftOut)))) }
        }
        if let proof = reads.proof {
            fields.append(("proof", part(proof, notRecorded: texts.proofNotPublished, texts: texts, proofFields(texts))))
        }
        if let certificate = reads.certificate {
            fields.append(("certificate", part(certificate, notRecorded: texts.certificateNotIssued, texts: texts) { certificate in
                var members: [(String, JSON)] = []
                if let status = certificate.status { members.append(("status", .string(status))) }
                if let issuedAt = certificate.issuedAt { members.append(("issued_at", .string(issuedAt))) }
                // A certificate to keep only for the object in hand, and only while valid: a printed code must not hand
                // a buyer the named item's certificate, nor anyone a revoked one.
                if product.about == .object, ScreenTexts.certificateIsValid(status: certificate.status),
                   let identifier = reads.certificateIdentifier {
                    let url = SealTrustClient.certificatePDFURL(identifier: identifier, base: publicBase)
                    members.append(("pdf_url", .string(url.absoluteString)))
                }
                return .object(members + [("message", .string(texts.certificateText(status: certificate.status)))])
            }))
        }
        if let history = reads.history {
            fields.append(("history", part(history, notRecorded: texts.historyNotPublished, texts: texts) { events in
                .array(events.map { event in
                    var members: [(String, JSON)] = [("kind", .string(event.kind))]
                    if let at = event.fields["at"] { members.append(("at", at)) }
                    return .object(members + [("message", .string(texts.historyText(kind: event.kind)))])
                })
            }))
            if reads.historyLeftOut > 0 { fields.append(("history_truncated", .int(Int64(reads.historyLeftOut)))) }
        }
        if case .failure(let failure) = reads.passport {
            fields += failed(failure, notRecorded: texts.passportNotFound, notOpen: texts.passportTierNotOpen,
                             tooManyCalls: texts.tooManyCalls(wait:), unreadable: texts.passportUnreadable)
        } else if case .model = product.subject {
            fields.append(("message", .string(texts.productReferenceNotice)))
        } else {
            fields.append(("message", .string(texts.passportNotice)))
        }
        return fields
    }

    /// The answer when the station already reads as many passports as it allows: nothing was sent.
    static func busy(retryAfterSeconds: Int, texts: ScreenTexts) -> [(String, JSON)] {
        [("outcome", "too_many_calls"), ("retry_after_s", .int(Int64(retryAfterSeconds))),
         ("message", .string(texts.tooManyCalls(wait: retryAfterSeconds)))]
    }

    private static func proofFields(_ texts: ScreenTexts) -> (ProofBundle) -> JSON {
        { proof in
            var members: [(String, JSON)] = [("anchoring", .string(proof.anchoring.rawValue))]
            if let chain = proof.anchoringChain { members.append(("chain", .string(chain))) }
            if let hash = proof.anchoringTxHash { members.append(("tx_hash", .string(hash))) }
            if let hash = proof.dataHash { members.append(("data_hash", .string(hash))) }
            if let uri = proof.ipfsURI { members.append(("ipfs_uri", .string(uri))) }
            if let credential = proof.credentialState { members.append(("credential", .string(credential))) }
            return .object(members + [("message", .string(texts.anchoringText(for: proof.anchoring)))])
        }
    }

    /// A part's object, or its failure in place of its fields.
    private static func part<Value>(_ read: Result<Value, SealTrustError>, notRecorded: String, texts: ScreenTexts,
                                    _ body: (Value) -> JSON) -> JSON {
        switch read {
        case .success(let value):
            return body(value)
        case .failure(let failure):
            return .object(failed(failure, notRecorded: notRecorded, notOpen: texts.partNotOpen,
                                  tooManyCalls: texts.partTooManyCalls(wait:), unreadable: texts.partUnreadable))
        }
    }

    /// `outcome` (`not_found` for 404, `not_authorized` for 401 or 403, `too_many_calls`, else `failure`), the
    /// contract's `error` when the API or the network gave one (not for the station's own limit), and the sentence.
    private static func failed(_ failure: SealTrustError, notRecorded: String, notOpen: String,
                               tooManyCalls: (Int?) -> String, unreadable: String) -> [(String, JSON)] {
        let outcome: String
        let message: String
        switch failure {
        case .api(status: 404, _, _, _): (outcome, message) = ("not_found", notRecorded)
        case .api(status: 401, _, _, _), .api(status: 403, _, _, _), .notAuthenticated: (outcome, message) = ("not_authorized", notOpen)
        case .tooManyCalls, .api(status: 429, _, _, _): (outcome, message) = ("too_many_calls", tooManyCalls(failure.retryAfterSeconds))
        default: (outcome, message) = ("failure", unreadable)
        }
        var members: [(String, JSON)] = [("outcome", .string(outcome))]
        if let report = APIErrorReport(failure) { members.append(("error", report.json)) }
        if outcome == "too_many_calls", let wait = failure.retryAfterSeconds { members.append(("retry_after_s", .int(Int64(wait)))) }
        return members + [("message", .string(message))]
    }
}
