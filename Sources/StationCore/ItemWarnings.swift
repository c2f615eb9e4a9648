import JSONCore
import SealTrustKit
import Sentences

/// What a buyer must be told about an item (socket-protocol.md, `warnings`), decided here once from everything the
/// station knows: the verdict and its theft flag, the passport, the certificate, the proofs and the history. The
/// page and scanctl show the list; neither decides it again.
enum ItemWarning: String, Sendable, CaseIterable {
    /// A theft report open on the unit: an alert, whatever code was scanned.
    case theftReported = "theft_reported"
    /// Anything but `valid`, a status nobody here knows included.
    case certificateNotValid = "certificate_not_valid"
    /// The passport changed after it was anchored: the one state anchoring exists to raise.
    case modifiedAfterAnchoring = "modified_after_anchoring"
    /// A printed code or an identifier named the item; nothing proves the object in hand is that item.
    case namedItemOnly = "named_item_only"

    /// The warnings about `product` from `reads`, most serious first.
    static func of(_ product: ProductContext, reads: PassportReads) -> [ItemWarning] {
        var warnings: [ItemWarning] = []
        if product.theftReported || theftFlagged(in: reads.passport) || reads.historyTheftOpen || theftOpen(in: reads.history) {
            warnings.append(.theftReported)
        }
        if case .success(let certificate)? = reads.certificate, !ScreenTexts.certificateIsValid(status: certificate.status) {
            warnings.append(.certificateNotValid)
        }
        if case .success(let proof)? = reads.proof, proof.anchoring == .modifiedAfterAnchoring {
            warnings.append(.modifiedAfterAnchoring)
        }
        if product.about == .namedItem { warnings.append(.namedItemOnly) }
        return warnings
    }

    /// The sentence that says it, in the station's language.
    func message(_ texts: ScreenTexts, certificateStatus: String?) -> String {
        switch self {
        case .theftReported: texts.theftWarning
        case .certificateNotValid: texts.certificateText(status: certificateStatus)
        case .modifiedAfterAnchoring: texts.modifiedAfterAnchoring
        case .namedItemOnly: texts.namedItemOnly
        }
    }

    /// The passport's own flag, where the API gives one.
    private static func theftFlagged(in passport: Result<Passport, SealTrustError>?) -> Bool {
        guard case .success(let passport)? = passport else { return false }
        return passport.fields["theft_reported"] == .bool(true)
    }

    /// A `theft_reported` that no later `theft_report_closed` closes (the history is newest first, by instant).
    private static func theftOpen(in history: Result<[HistoryEvent], SealTrustError>?) -> Bool {
        guard case .success(let events)? = history else { return false }
        return theftOpen(in: events)
    }

    static func theftOpen(in events: [HistoryEvent]) -> Bool {
        for event in events {
            switch event.kind {
            case "theft_reported": return true
            case "theft_report_closed": return false
            default: continue
            }
        }
        return false
    }
}
